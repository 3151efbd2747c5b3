//go:build race

package event

// raceEnabled: the race detector slows the tests that verify many logs,
// which then verify fewer.
const raceEnabled = true
