//go:build !race

package jsapi_test

const raceEnabled = false
