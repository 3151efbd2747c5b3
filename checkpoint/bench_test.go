package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"github.com/moteur/moteur/effect"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
)

// BenchmarkPlan plans a rewind to the first point of a session of 1 000
// writes over 100 files (10 turns, each rewriting every file), the files
// (1 KiB each) on disk as the session left them.
func BenchmarkPlan(b *testing.B) {
	const files, turns = 100, 10
	root := b.TempDir()
	var st State
	var seq uint64
	next := func(p any, typ event.Type) {
		seq++
		st.Apply(event.Event{Seq: seq, Type: typ, SessionID: "bench", Payload: p})
	}
	content := func(f, turn int) []byte {
		return []byte(fmt.Sprintf("file %d, turn %d\n%s", f, turn, strings.Repeat("x", 1000)))
	}
	first := uint64(1)
	for turn := 0; turn < turns; turn++ {
		next(event.UserMessagePayload{Text: fmt.Sprint("turn ", turn)}, event.UserMessage)
		for f := 0; f < files; f++ {
			c := effect.Change{Path: fmt.Sprintf("pkg%d/file%d.go", f%10, f), After: HashOf(content(f, turn))}
			if turn > 0 {
				c.Before = HashOf(content(f, turn-1))
			}
			next(event.ToolResultPayload{CallID: fmt.Sprint("c", seq), Name: "write_file",
				Changes: []effect.Change{c}}, event.ToolResult)
		}
	}
	for f := 0; f < files; f++ {
		p := filepath.Join(root, fmt.Sprintf("pkg%d", f%10), fmt.Sprintf("file%d.go", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, content(f, turns-1), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := st.Plan(root, first)
		if err != nil || len(p.Files) != files || p.Files[0].Status != StatusOK {
			b.Fatalf("plan: %d files, %v", len(p.Files), err)
		}
	}
}

// benchPut saves a new 64 KiB blob per iteration (a counter in its first
// bytes makes each content new, so that no Put is the no-op of a content
// already stored): the write a file tool makes before it overwrites a
// file, fsyncs included.
func benchPut(b *testing.B, key *atrest.Key) {
	s := openStoreAt(b, filepath.Join(b.TempDir(), "checkpoints"), key)
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := uint64(0)
	for b.Loop() {
		n++
		binary.LittleEndian.PutUint64(data, n)
		if _, err := s.Put(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPut64KiBClear is the write of earlier versions (Config.Clear).
func BenchmarkPut64KiBClear(b *testing.B) { benchPut(b, nil) }

// BenchmarkPut64KiBSealed is the write with the at-rest key: AES-256-GCM
// and the keyed name on top of the same file operations.
func BenchmarkPut64KiBSealed(b *testing.B) { benchPut(b, testKey(b)) }

// benchGet reads one 64 KiB blob back, as a rewind does for each file.
func benchGet(b *testing.B, key *atrest.Key) {
	s := openStoreAt(b, filepath.Join(b.TempDir(), "checkpoints"), key)
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<10)
	id, err := s.Put(context.Background(), data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Get(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet64KiBClear(b *testing.B)  { benchGet(b, nil) }
func BenchmarkGet64KiBSealed(b *testing.B) { benchGet(b, testKey(b)) }
