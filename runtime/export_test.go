package runtime

// RunsInFlight is how many runs Drive and Call started that have not ended; on the loop.
func RunsInFlight(vm *VM) int { return len(vm.runs) }
