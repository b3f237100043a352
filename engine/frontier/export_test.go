package frontier

// SetReadAheadBudget sets the most bytes f reads ahead from its store (readAheadBudget).
func SetReadAheadBudget(f *Frontier, n int) { f.raBudget = n }

// ReadAhead returns how many bytes f holds read ahead.
func ReadAhead(f *Frontier) int { return f.raHeld }

// WithMigrateChunk returns o with a migration writing n bytes of requests per batch.
func WithMigrateChunk(o Options, n int) Options {
	o.migrateChunk = n
	return o
}
