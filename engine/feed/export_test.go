package feed

// Crash drops f as a killed process leaves it: the file is closed as it is, without the
// closing, the end of the gzip member or an fsync (a table feed's buffered rows are lost,
// its connection closed), and the feed writes nothing more.
func Crash(f *Feed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = true
	if f.cur != nil && f.cur.file != nil {
		f.cur.file.Close()
	}
	if f.tab != nil {
		f.tab.rows = nil
		_ = f.tab.drv.close()
	}
}

// SQLBatchRows is sqlBatchRows, for tests.
const SQLBatchRows = sqlBatchRows
