package frontier

// SetReadAheadBudget sets the most bytes f reads ahead from its store (readAheadBudget).
func SetReadAheadBudget(f *Frontier, n int) { f.raBudget = n }

// ReadAhead returns how many bytes f holds read ahead.
func ReadAhead(f *Frontier) int { return f.raHeld }
