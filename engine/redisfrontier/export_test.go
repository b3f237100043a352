package redisfrontier

// Kill makes f stop as a killed worker would: its connection closes, so it neither sends
// its outbox nor renews nor releases its leases.
func (f *Frontier) Kill() {
	_ = f.sub.Close()
	_ = f.rdb.Close()
	<-f.loopDone
}

// Freeze stops f's round trips (the one in flight ends), as a SIGSTOP of the worker or a
// partition would: it neither renews its leases nor sends its outbox until Thaw.
func (f *Frontier) Freeze() { f.frozen.Lock() }

// Thaw lets f's round trips go on after Freeze.
func (f *Frontier) Thaw() { f.frozen.Unlock() }
