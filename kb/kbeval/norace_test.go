//go:build !race

package kbeval

// raceEnabled reports a test binary built with -race.
const raceEnabled = false
