//go:build race

package analyze

// raceEnabled reports a test binary built with -race.
const raceEnabled = true
