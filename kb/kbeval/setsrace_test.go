package kbeval

import "testing"

// skipUnderRace skips a test that scores whole evaluation sets: thousands
// of queries take more than the test timeout under the race detector, and
// they run no goroutines of their own for it to watch. The README's test
// command runs this package again without -race, so they run in CI.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("scores whole evaluation sets: run without -race (the README's test command does: go test ./kb/kbeval)")
	}
}
