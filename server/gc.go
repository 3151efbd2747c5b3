package server

import (
	"runtime/debug"
)

// GCPercent is the garbage collector's target moteur serve runs with when
// the environment sets none (GOGC): the heap may grow to five times what
// is live between two collections, where Go's default is twice.
//
// Why: a server streaming to hundreds of clients allocates for each event
// it relays, on a small live heap, so at the default the collector runs
// about once a second; on 2 cores each of its mark phases takes a core's
// share and delays the streams (BenchmarkConcurrentStreams: p99 from about
// 22 ms to 12 ms). The memory this costs is a few times a small heap; a
// deployment that must bound it sets GOMEMLIMIT, which the runtime honours
// whatever the target.
const GCPercent = 400

// TuneGC sets GCPercent unless getenv("GOGC") chose a target, and returns
// a function that puts back the previous one.
func TuneGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(GCPercent)
	return func() { debug.SetGCPercent(old) }
}
