package event

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/moteur/moteur/event/audittest"
)

// sameVerdict verifies log with o and with the sequential verifier as it
// was (refVerifyAudit), and fails unless both give the same report and the
// same error: the same *AuditError (index, line, reason, sentinel), or an
// error of the same text.
func sameVerdict(t testing.TB, what string, log []byte, c AuditCheck, o auditVerifyOptions) {
	t.Helper()
	wantRep, wantErr := refVerifyAudit(bytes.NewReader(log), c)
	sameAs(t, what, log, c, o, wantRep, wantErr)
}

// sameAs is sameVerdict, the sequential verifier's verdict given.
func sameAs(t testing.TB, what string, log []byte, c AuditCheck, o auditVerifyOptions, wantRep AuditReport, wantErr error) {
	t.Helper()
	gotRep, gotErr := verifyAudit(bytes.NewReader(log), c, o)
	agree(t, fmt.Sprintf("%s (block %d, %d workers)", what, o.chunk, o.workers), gotRep, gotErr, wantRep, wantErr)
}

func agree(t testing.TB, what string, gotRep AuditReport, gotErr error, wantRep AuditReport, wantErr error) {
	t.Helper()
	if !reflect.DeepEqual(gotRep, wantRep) {
		t.Errorf("%s: report\n%+v\nwant\n%+v", what, gotRep, wantRep)
	}
	var got, want *AuditError
	switch {
	case errors.As(wantErr, &want) != errors.As(gotErr, &got):
		t.Errorf("%s: error %v, want %v", what, gotErr, wantErr)
	case want != nil && *got != *want:
		t.Errorf("%s: error %#v, want %#v", what, *got, *want)
	case (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error():
		t.Errorf("%s: error %v, want %v", what, gotErr, wantErr)
	}
}

// rechain rewrites lines (each with its end of line) as a chain from
// record first on: unkeyed (as an earlier version wrote it) below unkeyed,
// keyed with key from there on. It returns the log and the heads a store
// holds of it (none for unkeyed records).
func rechain(t testing.TB, lines [][]byte, first uint64, prev string, unkeyed int, key []byte) ([]byte, [][]byte) {
	t.Helper()
	var log []byte
	var heads [][]byte
	for i, l := range lines {
		rec, reason := parseAuditLine(bytes.TrimSuffix(l, []byte("\n")))
		if reason != "" {
			t.Fatal(reason)
		}
		k := key
		if i < unkeyed {
			k = nil
		}
		log, prev = audittest.AppendRecord(log, first+uint64(i), prev, rec.event, k)
		var h []byte
		if k != nil {
			h = macOf(t, prev)
		}
		heads = append(heads, h)
	}
	return log, heads
}

func macOf(t testing.TB, hexMAC string) []byte {
	t.Helper()
	var b [32]byte
	if !decodeHexHash(&b, []byte(hexMAC)) {
		t.Fatalf("not a MAC: %q", hexMAC)
	}
	return b[:]
}

// mutations are edits of log: at each of bytes, the byte flipped, made an
// end of line, deleted or doubled; at each of cuts, the log cut; each of
// lines removed, duplicated, swapped with the next and with one 17 further
// on, replaced by the next.
func mutations(log []byte, at editPlaces) map[string][]byte {
	out := map[string][]byte{}
	splice := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, p := range at.bytes {
		if p < 0 || p >= len(log) {
			continue
		}
		flip := bytes.Clone(log)
		flip[p] ^= 0x01
		out[fmt.Sprintf("byte %d flipped", p)] = flip
		nl := bytes.Clone(log)
		nl[p] = '\n'
		out[fmt.Sprintf("byte %d made an end of line", p)] = nl
		out[fmt.Sprintf("byte %d deleted", p)] = splice(log[:p], log[p+1:])
		out[fmt.Sprintf("byte %d doubled", p)] = splice(log[:p+1], log[p:])
	}
	for _, p := range at.cuts {
		if p >= 0 && p < len(log) {
			out[fmt.Sprintf("cut at %d", p)] = log[:p]
		}
	}
	lines := bytes.SplitAfter(log, []byte("\n"))
	lines = lines[:len(lines)-1] // after the last end of line
	edit := func(name string, f func(l [][]byte) [][]byte) {
		out[name] = bytes.Join(f(append([][]byte(nil), lines...)), nil)
	}
	for _, i := range at.lines {
		if i < 0 || i >= len(lines) {
			continue
		}
		edit(fmt.Sprintf("line %d removed", i), func(l [][]byte) [][]byte { return append(l[:i], l[i+1:]...) })
		edit(fmt.Sprintf("line %d duplicated", i), func(l [][]byte) [][]byte { return append(l[:i+1], l[i:]...) })
		if i+1 < len(lines) {
			edit(fmt.Sprintf("lines %d and %d swapped", i, i+1), func(l [][]byte) [][]byte { l[i], l[i+1] = l[i+1], l[i]; return l })
			edit(fmt.Sprintf("line %d replaced by the next", i), func(l [][]byte) [][]byte { l[i] = l[i+1]; return l })
		}
		if j := i + 17; j < len(lines) {
			edit(fmt.Sprintf("lines %d and %d swapped", i, j), func(l [][]byte) [][]byte { l[i], l[j] = l[j], l[i]; return l })
		}
	}
	return out
}

// blockEnds verifies log, which must verify, in blocks of size on workers
// workers (1: none), checks the blocks it went by, and returns their ends.
func blockEnds(t *testing.T, log []byte, c AuditCheck, size, workers int) []int64 {
	t.Helper()
	stats := new(auditVerifyStats)
	rep, err := verifyAudit(bytes.NewReader(log), c, auditVerifyOptions{chunk: size, workers: workers, stats: stats})
	if err != nil {
		t.Fatalf("block %d: %+v, %v", size, rep, err)
	}
	ends := stats.ends
	prepared := len(ends)
	if workers == 1 {
		prepared = 0
	}
	if stats.chunks != len(ends) || stats.prepared != prepared || len(ends) < 10 {
		t.Fatalf("block %d, %d workers: %d blocks, %d prepared by workers; want more than 10, all prepared by workers",
			size, workers, stats.chunks, stats.prepared)
	}
	var last int64
	for _, e := range ends {
		if e <= last || log[e-1] != '\n' || (e-last > int64(size) && bytes.IndexByte(log[last:last+int64(size)], '\n') >= 0) {
			t.Fatalf("block %d: a block [%d, %d)", size, last, e)
		}
		last = e
	}
	if last != int64(len(log)) {
		t.Fatalf("block %d: the blocks end at %d, the log at %d", size, last, len(log))
	}
	return ends
}

// editPlaces are where to edit a log: bytes, cuts, lines (0-based).
type editPlaces struct{ bytes, cuts, lines []int }

// editsAround are the places to edit log at: n spread over it, and at k of
// ends (spread over them), the bytes and the lines either side.
func editsAround(log []byte, ends []int64, n, k int) (at editPlaces) {
	lineAt := func(p int) int { return bytes.Count(log[:p], []byte("\n")) }
	lines := bytes.Count(log, []byte("\n"))
	for i := range n {
		p := i * len(log) / n
		at.bytes = append(at.bytes, p+i%5)
		at.cuts = append(at.cuts, p+7)
		at.lines = append(at.lines, lineAt(p))
	}
	for i := range k {
		e := int(ends[i*len(ends)/k])
		at.bytes = append(at.bytes, e-2, e-1, e, e+1)
		at.cuts = append(at.cuts, e-1, e, e+1)
		at.lines = append(at.lines, lineAt(e)-1, lineAt(e))
	}
	at.bytes = append(at.bytes, 0, len(log)-1)
	at.lines = append(at.lines, 0, lines-1)
	return at
}

func TestAuditVerifyParallelAgreesWithSequential(t *testing.T) {
	n, spread, atEnds := 2000, 12, 5
	if raceEnabled || testing.Short() {
		n, spread, atEnds = 400, 4, 3
	}
	path, st := writeAuditLog(t, n)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := []auditVerifyOptions{
		{chunk: 4096, workers: 2},
		{chunk: 1000, workers: 3},
		{chunk: 333, workers: 4}, // lines longer than a block
		{chunk: 64, workers: 2},  // every line longer than a block
		{chunk: 1000, workers: 1},
	}
	// The clean log, in more than 10 blocks, each prepared by a worker
	// (but with 1).
	ends := map[int][]int64{}
	for _, o := range opts {
		ends[o.chunk] = blockEnds(t, whole, check(st), o.chunk, o.workers)
	}

	// Each edit, under the full check and under one of the others, with
	// blocks of each size in turn.
	others := []struct {
		name  string
		check AuditCheck
	}{
		{"key alone", AuditCheck{Key: testKey}},
		{"nothing", AuditCheck{}},
		{"store without key", AuditCheck{SessionID: "s1", Store: st.audit()}},
		{"store 3 behind", AuditCheck{Key: testKey, SessionID: "s1", Store: &AuditStore{Heads: st.heads[:n-3]}}},
		{"another session", AuditCheck{Key: testKey, SessionID: "s2"}},
		{"another key", AuditCheck{Key: otherKey, Store: st.audit()}},
	}
	var runs, parallel int
	run := func(what string, log []byte, c AuditCheck, opts ...auditVerifyOptions) {
		t.Helper()
		wantRep, wantErr := refVerifyAudit(bytes.NewReader(log), c)
		for _, o := range opts {
			stats := new(auditVerifyStats)
			o.stats = stats
			sameAs(t, what, log, c, o, wantRep, wantErr)
			runs++
			if stats.prepared > 1 {
				parallel++
			}
		}
	}
	edits := map[string][]byte{}
	for _, size := range []int{4096, 1000, 333} {
		for name, log := range mutations(whole, editsAround(whole, ends[size], spread, atEnds)) {
			edits[name] = log
		}
	}
	for k, name := range slices.Sorted(maps.Keys(edits)) {
		run(name+", full check", edits[name], check(st), opts[k%4])
		c := others[k%len(others)]
		run(name+", "+c.name, edits[name], c.check, opts[k%len(opts)])
	}
	t.Logf("%d edits, %d verifications, %d of them by more than one worker's block", len(edits), runs, parallel)
	if parallel < runs/2 {
		t.Errorf("only %d of %d verifications went by more than one block", parallel, runs)
	}

	// A session continued from an earlier version: unkeyed records, then
	// keyed ones; and a fork's log.
	lines := bytes.SplitAfter(whole, []byte("\n"))[:n]
	mixed, heads := rechain(t, lines, 0, zeroHash, n/3, testKey)
	fork := n / 4
	forkLog, _ := rechain(t, lines[fork:], uint64(fork), hexOf(st.heads[fork-1]), 0, testKey)
	for _, c := range []struct {
		name  string
		log   []byte
		check AuditCheck
	}{
		{"unkeyed then keyed", mixed, AuditCheck{Key: testKey, SessionID: "s1", Store: &AuditStore{Heads: heads}}},
		{"unkeyed then keyed, alone", mixed, AuditCheck{Key: testKey}},
		{"unkeyed then keyed, no key", mixed, AuditCheck{Store: &AuditStore{Heads: heads}}},
		{"fork", forkLog, AuditCheck{Key: testKey, SessionID: "s1", Store: &AuditStore{Heads: st.heads, First: uint64(fork)}}},
		{"fork alone", forkLog, AuditCheck{Key: testKey}},
	} {
		ends := blockEnds(t, c.log, c.check, 1000, 3)
		edits := mutations(c.log, editsAround(c.log, ends, spread/2, atEnds/2+1))
		for k, name := range slices.Sorted(maps.Keys(edits)) {
			run(c.name+": "+name, edits[name], c.check, opts[k%len(opts)])
		}
	}
}

// TestAuditVerifyReaders: readers that give a few bytes at a time, fail
// midway, or give nothing, get the verdicts the sequential verifier gives;
// and none is read once verification has returned.
func TestAuditVerifyReaders(t *testing.T) {
	path, st := writeAuditLog(t, 300)
	whole, _ := os.ReadFile(path)
	bad := bytes.Clone(whole)
	bad[len(bad)/3] ^= 1
	failure := errors.New("disk on fire")
	for _, c := range []struct {
		name string
		r    func([]byte) io.Reader
	}{
		{"one byte at a time", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"half at a time", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
		{"data with EOF", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
		{"fails midway", func(b []byte) io.Reader {
			return io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotest.ErrReader(failure))
		}},
		{"fails with the data", func(b []byte) io.Reader { return &dataThenErr{b: b[:len(b)*2/3], err: failure} }},
		{"then nothing", func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b[:len(b)/2]), emptyReader{}) }},
	} {
		for _, log := range [][]byte{whole, bad, whole[:len(whole)-5]} {
			for _, o := range []auditVerifyOptions{{chunk: 2000, workers: 3}, {chunk: 100, workers: 2}, {chunk: 2000, workers: 1}} {
				wantRep, wantErr := refVerifyAudit(c.r(log), check(st))
				r := &watchedReader{r: c.r(log)}
				gotRep, gotErr := verifyAudit(r, check(st), o)
				r.returned.Store(true)
				agree(t, fmt.Sprintf("%s, %d bytes, block %d", c.name, len(log), o.chunk), gotRep, gotErr, wantRep, wantErr)
				if r.late.Load() {
					t.Errorf("%s: read after verifyAudit returned", c.name)
				}
			}
		}
	}
}

// TestAuditVerifyReaderPanics: a reader that panics, after the first bad
// record or before it, makes VerifyAudit panic in its caller's goroutine if,
// and only if, it did before.
func TestAuditVerifyReaderPanics(t *testing.T) {
	path, st := writeAuditLog(t, 300)
	whole, _ := os.ReadFile(path)
	bad := bytes.Clone(whole)
	bad[len(bad)/3] ^= 1
	verdict := func(f func() (AuditReport, error)) (rep AuditReport, err error, panicked any) {
		defer func() { panicked = recover() }()
		rep, err = f()
		return rep, err, nil
	}
	for _, log := range [][]byte{whole, bad} {
		r := func() io.Reader { return io.MultiReader(bytes.NewReader(log[:len(log)*2/3]), panicReader{}) }
		wantRep, wantErr, wantPanic := verdict(func() (AuditReport, error) { return refVerifyAudit(r(), check(st)) })
		if (wantPanic != nil) != bytes.Equal(log, whole) {
			t.Fatalf("the sequential verifier: panic %v, error %v", wantPanic, wantErr)
		}
		for _, o := range []auditVerifyOptions{{chunk: 2000, workers: 3}, {chunk: 100, workers: 2}, {chunk: 2000, workers: 1}} {
			gotRep, gotErr, gotPanic := verdict(func() (AuditReport, error) { return verifyAudit(r(), check(st), o) })
			if gotPanic != wantPanic {
				t.Errorf("block %d: panic %v, want %v", o.chunk, gotPanic, wantPanic)
			}
			if wantPanic == nil {
				agree(t, fmt.Sprintf("block %d", o.chunk), gotRep, gotErr, wantRep, wantErr)
			}
		}
	}
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("the reader panics") }

type watchedReader struct {
	r              io.Reader
	returned, late atomic.Bool
}

func (w *watchedReader) Read(p []byte) (int, error) {
	if w.returned.Load() {
		w.late.Store(true)
	}
	return w.r.Read(p)
}

// dataThenErr gives all of b with err, in one Read.
type dataThenErr struct {
	b   []byte
	err error
}

func (d *dataThenErr) Read(p []byte) (int, error) {
	n := copy(p, d.b)
	d.b = d.b[n:]
	if len(d.b) == 0 {
		return n, d.err
	}
	return n, nil
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestAuditVerifyTestdata: the logs of earlier versions kept in testdata,
// their forks among them, in small blocks.
func TestAuditVerifyTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/audit-v0/*.jsonl")
	if len(files) == 0 {
		t.Skip("no logs in testdata/audit-v0")
	}
	for _, f := range files {
		log, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []AuditCheck{{Key: testKey}, {}, {Store: &AuditStore{Heads: make([][]byte, bytes.Count(log, []byte("\n")))}}} {
			for _, o := range []auditVerifyOptions{{chunk: 200, workers: 3}, {chunk: 50, workers: 2}} {
				sameVerdict(t, f, log, c, o)
			}
		}
	}
}

// auditSeedLog is a log of n records keyed with key, for the fuzzer to
// start from.
func auditSeedLog(t testing.TB, n int, key []byte) []byte {
	var log []byte
	prev := zeroHash
	for i, e := range auditEvents(n) {
		b, err := json.Marshal(MaskEvent(e))
		if err != nil {
			t.Fatal(err)
		}
		log, prev = audittest.AppendRecord(log, uint64(i), prev, b, key)
	}
	return log
}

// fuzzVerdicts checks that log gets the same verdict in blocks of a size
// its length chooses, on 3 workers, as from the sequential verifier: with
// check, and without its key when the length is odd.
func fuzzVerdicts(t *testing.T, log []byte, check AuditCheck) {
	if len(log)%2 == 1 {
		check.Key = nil
	}
	sameVerdict(t, "fuzzed log", log, check, auditVerifyOptions{chunk: 16 + len(log)%500, workers: 3, fresh: true})
}

// TestAuditParseHelpers: the helpers the parser was made faster with say
// what the ones before said, on every input that matters.
func TestAuditParseHelpers(t *testing.T) {
	// JSON strings: every string of up to 9 bytes of '"', '\\' and 'a'.
	var gen func(b []byte, n int)
	gen = func(b []byte, n int) {
		if got, want := jsonStringLen(b), refJSONStringLen(b); got != want {
			t.Fatalf("jsonStringLen(%q) = %d, want %d", b, got, want)
		}
		if n > 0 {
			for _, c := range []byte{'"', '\\', 'a'} {
				gen(append(b, c), n-1)
			}
		}
	}
	gen(nil, 9)
	// Hex hashes: every byte at every place of one.
	digits := bytes.Repeat([]byte("0123456789abcdef"), 4)
	for pos := range 64 {
		for c := range 256 {
			s := bytes.Clone(digits)
			s[pos] = byte(c)
			var sum [32]byte
			want := refIsHexHash(s)
			if isHexHash(s) != want || decodeHexHash(&sum, s) != want {
				t.Fatalf("%q at %d: isHexHash %v, decodeHexHash %v, want %v", byte(c), pos, isHexHash(s), decodeHexHash(&sum, s), want)
			}
			if w, _ := hex.DecodeString(string(s)); want && !bytes.Equal(sum[:], w) {
				t.Fatalf("decodeHexHash(%s) = %x", s, sum)
			}
		}
	}
	for _, s := range []string{"", "0", "00", "1", "7,", "01", "123x", "9999999999999999999", "10000000000000000000",
		"18446744073709551615", "18446744073709551616", "18446744073709551615x", "99999999999999999999", "184467440737095516150"} {
		v, n, ok := parseUint([]byte(s))
		wv, wn, wok := refParseUint([]byte(s))
		if ok != wok || ok && (v != wv || n != wn) {
			t.Errorf("parseUint(%q) = %d, %d, %v; want %d, %d, %v", s, v, n, ok, wv, wn, wok)
		}
	}
}
