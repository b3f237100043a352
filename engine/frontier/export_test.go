package frontier

// SetReadAheadBudget sets the most requests f reads ahead from its store (readAheadBudget).
func SetReadAheadBudget(f *Frontier, n int) { f.raBudget = n }

// ReadAhead returns how many requests f holds read ahead and not popped.
func ReadAhead(f *Frontier) int { return f.raHeld }
