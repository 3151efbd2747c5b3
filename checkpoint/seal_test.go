package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"github.com/moteur/moteur/effect"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
)

func TestOpenWantsAKeyOrClearAskedFor(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checkpoints")
	if _, err := Open(Config{Dir: dir}); err == nil || !strings.Contains(err.Error(), "no at-rest key") {
		t.Fatalf("Open without a key: %v, want a refusal", err)
	}
	if _, err := Open(Config{Dir: dir, Key: testKey(t), Clear: true}); err == nil {
		t.Fatal("Open with a key and Clear succeeded")
	}
	// Both refusals happened before anything was made.
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused Open created the directory: %v", err)
	}
	if _, err := Open(Config{Dir: dir, Clear: true}); err != nil {
		t.Fatalf("Open with Clear: %v", err)
	}
}

// TestClearStoreWritesAsEarlierVersions: a clear store keeps the layout
// every version before the at-rest key wrote (the id as the file's name,
// the content as it is), so that what one wrote the other reads.
func TestClearStoreWritesAsEarlierVersions(t *testing.T) {
	s := openStoreAt(t, t.TempDir(), nil)
	data := []byte("en clair\n")
	id, err := s.Put(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(s.dir, id[:2], id[2:]))
	if err != nil || !bytes.Equal(raw, data) {
		t.Fatalf("clear blob file: %q, %v", raw, err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, sealedDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a clear store made %s: %v", sealedDir, err)
	}
}

func TestSealedBlobCannotPassForAnother(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	a, b := []byte("contenu A"), []byte("contenu B")
	idA, err := s.Put(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	idB, err := s.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	rawA, err := os.ReadFile(s.sealedPath(idA))
	if err != nil {
		t.Fatal(err)
	}
	// A's blob, a valid sealed value under the right key, put in B's place.
	if err := os.WriteFile(s.sealedPath(idB), rawA, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, idB)
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, atrest.ErrDamaged) || got != nil {
		t.Fatalf("Get of a swapped blob: %q, %v; want ErrCorrupt and nothing", got, err)
	}
	// A itself still opens: the refusal was for the swap only.
	if got, err := s.Get(ctx, idA); err != nil || !bytes.Equal(got, a) {
		t.Fatalf("Get A: %q, %v", got, err)
	}
}

func TestFlippedCiphertextIsCorrupt(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	data := bytes.Repeat([]byte("ligne de code\n"), 100)
	id, err := s.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	p := s.sealedPath(id)
	for _, at := range []int{20, atrest.Overhead, len(data) + atrest.Overhead - 1} {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		good := bytes.Clone(raw)
		raw[at] ^= 0x80
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Get(ctx, id); !errors.Is(err, ErrCorrupt) || got != nil {
			t.Errorf("byte %d flipped: %q, %v; want ErrCorrupt", at, got, err)
		}
		if err := os.WriteFile(p, good, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Cut short, too.
	if err := os.Truncate(p, atrest.Overhead-1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrCorrupt) {
		t.Errorf("cut blob: %v; want ErrCorrupt", err)
	}
}

func TestAnotherKeyIsNamedNotTakenForMissing(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	ka, kb := testKey(t), testKey(t)
	a := openStoreAt(t, dir, ka)
	id, err := a.Put(ctx, []byte("PASSWORD=1234\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := openStoreAt(t, dir, kb)
	got, err := b.Get(ctx, id)
	if got != nil || !errors.Is(err, atrest.ErrWrongKey) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get with another key: %q, %v; want ErrWrongKey", got, err)
	}
	for _, want := range []string{id, ka.ID(), kb.ID(), kb.Path(), dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	// The blob planted under the name the other key gives it: opened,
	// and refused as another key's.
	raw, err := os.ReadFile(a.sealedPath(id))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(b.sealedPath(id)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.sealedPath(id), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, id); !errors.Is(err, atrest.ErrWrongKey) || !strings.Contains(err.Error(), b.sealedPath(id)) {
		t.Fatalf("planted blob: %v; want ErrWrongKey naming its file", err)
	}
	// The rightful key still reads it.
	if got, err := a.Get(ctx, id); err != nil || string(got) != "PASSWORD=1234\n" {
		t.Fatalf("Get with the key: %q, %v", got, err)
	}
}

func TestClearStoreAsksForTheKey(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	id, err := openStoreAt(t, dir, testKey(t)).Put(ctx, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = openStoreAt(t, dir, nil).Get(ctx, id)
	if !errors.Is(err, ErrNeedKey) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), id) {
		t.Fatalf("clear store, sealed blob: %v; want ErrNeedKey naming %s", err, id)
	}
	// An id the store has in no form is plainly missing.
	other := HashOf([]byte("absent"))
	if _, err := openStoreAt(t, t.TempDir(), nil).Get(ctx, other); errors.Is(err, ErrNeedKey) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("empty clear store: %v; want fs.ErrNotExist only", err)
	}
}

// copyTree copies the files under src to dst (a fixture is never changed
// in place).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// legacy are the blobs of testdata/clear-v0, written by the Store of the
// version before the at-rest key (commit 777e815).
var legacy = map[string]string{
	"9c374891837becb35ddccac86e9869a6c1e35a78215a85e5b9cb0e8fe07d26b8": "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
	"338aa2fca5926babc11dcaa06377dba78657ae346cd4751ed1c8e08c4ee8da94": "package main\n\nfunc main() { println(\"written by an earlier version\") }\n",
}

func TestClearBlobsOfEarlierVersionsStillRestore(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	copyTree(t, filepath.Join("testdata", "clear-v0"), dir)
	s := openStoreAt(t, dir, testKey(t))

	// A session of the earlier version: it overwrote both files, and its
	// events name the clear blobs.
	root := t.TempDir()
	var st State
	st.Apply(event.Event{Seq: 1, SessionID: "old", Type: event.UserMessage, Payload: event.UserMessagePayload{Text: "change them"}})
	seq := uint64(1)
	for id, content := range legacy {
		if HashOf([]byte(content)) != id {
			t.Fatalf("fixture %s does not hash to its name", id)
		}
		rel := "f-" + id[:8]
		now := []byte("rewritten " + rel)
		if err := os.WriteFile(filepath.Join(root, rel), now, 0o644); err != nil {
			t.Fatal(err)
		}
		seq++
		st.Apply(event.Event{Seq: seq, SessionID: "old", Type: event.ToolResult, Payload: event.ToolResultPayload{
			CallID: rel, Name: "write_file", Changes: []effect.Change{{Path: rel, Before: id, After: HashOf(now)}}}})
	}
	plan, err := st.Plan(root, 1)
	if err != nil || len(plan.Files) != len(legacy) {
		t.Fatalf("plan: %+v, %v", plan, err)
	}
	res := Apply(ctx, root, s, plan, plan, nil)
	for _, r := range res {
		if r.Status != RewoundOK {
			t.Fatalf("rewind of %s: %s %s", r.Path, r.Status, r.Error)
		}
	}
	for id, content := range legacy {
		if got, err := os.ReadFile(filepath.Join(root, "f-"+id[:8])); err != nil || string(got) != content {
			t.Fatalf("restored f-%s: %q, %v; want %q", id[:8], got, err, content)
		}
	}

	// A damaged clear blob is left where it is, and still reported.
	bad := HashOf([]byte("before the damage"))
	if err := os.MkdirAll(filepath.Join(dir, bad[:2]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, bad[:2], bad[2:]), []byte("after the damage"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A temporary file an interrupted Put of the earlier version left, and
	// one a live Put is writing.
	stale, live := filepath.Join(dir, tempPrefix+"1"), filepath.Join(dir, tempPrefix+"2")
	for _, p := range []string{stale, live} {
		if err := os.WriteFile(p, []byte(legacy["9c374891837becb35ddccac86e9869a6c1e35a78215a85e5b9cb0e8fe07d26b8"]), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}

	n, err := s.SealClear(ctx)
	if err != nil || n != len(legacy) {
		t.Fatalf("SealClear: %d, %v; want %d sealed", n, err, len(legacy))
	}
	for id, content := range legacy {
		if _, err := os.Stat(filepath.Join(dir, id[:2])); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("clear copy of %s still there: %v", id, err)
		}
		if got, err := s.Get(ctx, id); err != nil || string(got) != content {
			t.Errorf("Get %s after SealClear: %q, %v", id, got, err)
		}
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live Put's temporary file was removed: %v", err)
	}
	if _, err := s.Get(ctx, bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged clear blob after SealClear: %v; want ErrCorrupt", err)
	}
	if n, err := s.SealClear(ctx); err != nil || n != 0 {
		t.Errorf("second SealClear: %d, %v; want nothing to do", n, err)
	}
}

func TestPutSealsTheClearCopyOfItsContent(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	data := []byte("TOKEN=abc\n")
	id, err := openStoreAt(t, dir, nil).Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	clear := filepath.Join(dir, id[:2], id[2:])
	if _, err := os.Stat(clear); err != nil {
		t.Fatal(err)
	}
	s := openStoreAt(t, dir, testKey(t))
	if got, err := s.Put(ctx, data); err != nil || got != id {
		t.Fatalf("Put: %s, %v", got, err)
	}
	if _, err := os.Stat(clear); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("clear copy kept after its content was sealed: %v", err)
	}
	if raw, err := os.ReadFile(s.sealedPath(id)); err != nil || !atrest.IsSealed(raw) {
		t.Fatalf("sealed copy: %v", err)
	}
}

// TestGetDuringSealClearNeverMisses: another process seals the clear blobs
// while this one reads them; every read finds its blob, clear or sealed.
func TestGetDuringSealClearNeverMisses(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	clear := openStoreAt(t, dir, nil)
	var ids []string
	for i := range 200 {
		id, err := clear.Put(ctx, []byte(strings.Repeat("x", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	key := testKey(t)
	sealer, reader := openStoreAt(t, dir, key), openStoreAt(t, dir, key)
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		if n, err := sealer.SealClear(ctx); err != nil || n != len(ids) {
			t.Errorf("SealClear: %d, %v", n, err)
		}
	})
	rounds := 0
	for again := true; again; rounds++ {
		select {
		case <-done:
			again = false // one more round once sealing is over
		default:
		}
		for i, id := range ids {
			if got, err := reader.Get(ctx, id); err != nil || len(got) != i {
				t.Fatalf("round %d, Get %s: %d bytes, %v", rounds, id, len(got), err)
			}
		}
	}
	wg.Wait()
	if files := blobFiles(t, reader); len(files) != len(ids) {
		t.Fatalf("%d blob files after sealing, want %d", len(files), len(ids))
	}
}

func TestSealClearNeedsAKey(t *testing.T) {
	if _, err := openStoreAt(t, t.TempDir(), nil).SealClear(context.Background()); err == nil {
		t.Fatal("SealClear without a key succeeded")
	}
}

// TestRewindFailsOnlyTheFileWhoseCheckpointDoesNotOpen: one damaged sealed
// blob fails its own file, saying why and naming the blob's file and the
// key file; the other file of the rewind is restored.
func TestRewindFailsOnlyTheFileWhoseCheckpointDoesNotOpen(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	root := t.TempDir()
	var st State
	st.Apply(event.Event{Seq: 1, SessionID: "s", Type: event.UserMessage, Payload: event.UserMessagePayload{Text: "go"}})
	ids := map[string]string{}
	for i, name := range []string{"good.txt", "bad.txt"} {
		before, after := []byte("before "+name), []byte("after "+name)
		id, err := s.Put(ctx, before)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
		if err := os.WriteFile(filepath.Join(root, name), after, 0o644); err != nil {
			t.Fatal(err)
		}
		st.Apply(event.Event{Seq: uint64(2 + i), SessionID: "s", Type: event.ToolResult, Payload: event.ToolResultPayload{
			CallID: name, Name: "write_file", Changes: []effect.Change{{Path: name, Before: id, After: HashOf(after)}}}})
	}
	bad := s.sealedPath(ids["bad.txt"])
	raw, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1
	if err := os.WriteFile(bad, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	plan, err := st.Plan(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := Apply(ctx, root, s, plan, plan, nil)
	got := statuses(res)
	if got["good.txt"] != RewoundOK {
		t.Errorf("good.txt: %s", got["good.txt"])
	}
	msg := got["bad.txt"]
	if !strings.HasPrefix(msg, RewoundFailed+": ") || !strings.Contains(msg, bad) || !strings.Contains(msg, s.key.Path()) ||
		!strings.Contains(msg, "does not open under the at-rest key") {
		t.Errorf("bad.txt: %q; want failed, naming %s and the key file", msg, bad)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "good.txt")); string(b) != "before good.txt" {
		t.Errorf("good.txt holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "bad.txt")); string(b) != "after bad.txt" {
		t.Errorf("bad.txt holds %q: a failed file must be left untouched", b)
	}
}
