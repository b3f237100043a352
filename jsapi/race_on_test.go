//go:build race

package jsapi_test

// raceEnabled: the race detector slows JS ~10×; the largest tests scale down with it.
const raceEnabled = true
