package redisfrontier

// Kill makes f stop as a killed worker would: its connection closes, so it neither sends
// its outbox nor renews nor releases its leases.
func (f *Frontier) Kill() {
	_ = f.rdb.Close()
	<-f.loopDone
}
