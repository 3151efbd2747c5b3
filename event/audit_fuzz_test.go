package event

import (
	"bytes"
	"runtime"
	"testing"
)

// FuzzVerifyAudit feeds arbitrary bytes to the verifier, with and without a
// key and a store: an audit log is a file anyone with access may have
// edited, so whatever it holds gets an error or a report, never a panic,
// and a log the verifier accepts with the key is one the writer could have
// produced: every record counted, the store's count matched. Verified in
// small blocks on several workers, every log gets the verdict the
// sequential verifier gives.
func FuzzVerifyAudit(f *testing.F) {
	// On one thread, the goroutines of a verification leave the same
	// coverage whatever their timing: the fuzzer needs it to be the input's.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	key := bytes.Repeat([]byte{7}, 32)
	f.Add([]byte(""), false)
	f.Add([]byte("{}\n"), true)
	f.Add([]byte(`{"index":0,"prev":"`+zeroHash+`","event":{},"mac":"00"}`+"\n"), true)
	f.Add(bytes.Repeat([]byte("x"), 300), false)
	f.Add(auditSeedLog(f, 2, key), false)
	f.Add(auditSeedLog(f, 2, key), true)
	f.Fuzz(func(t *testing.T, log []byte, withStore bool) {
		check := AuditCheck{Key: key}
		if withStore {
			check.Store = &AuditStore{Heads: [][]byte{nil, bytes.Repeat([]byte{1}, 32)}}
		}
		rep, err := VerifyAudit(bytes.NewReader(log), check)
		if err == nil && withStore && rep.Records != len(check.Store.Heads) {
			t.Fatalf("accepted %d records against a store of %d events", rep.Records, len(check.Store.Heads))
		}
		_, _ = VerifyAudit(bytes.NewReader(log), AuditCheck{})
		fuzzVerdicts(t, log, check)
	})
}
