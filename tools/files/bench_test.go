package files

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkReadFile reads the first page of a 1 MB file: "cached" is the
// steady state of a file the model reads again; "fresh" is a file modified
// in the last seconds, which the cache does not trust and reads each time.
func BenchmarkReadFile(b *testing.B) {
	s := newTestSet(b)
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "line %6d: the quick brown fox jumps over the lazy dog, again and again and again\n", i)
	}
	p := filepath.Join(s.real, "big.txt")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	tool := &ReadFile{s: s}
	args := json.RawMessage(`{"path":"big.txt"}`)
	for _, mode := range []string{"cached", "fresh"} {
		b.Run(mode, func(b *testing.B) {
			mtime := time.Now().Add(-time.Hour)
			if mode == "fresh" {
				mtime = time.Now()
			}
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(1 << 20)
			b.ReportAllocs()
			for b.Loop() {
				res, err := tool.Execute(context.Background(), args)
				if err != nil || !strings.Contains(res.Content, "next_offset") {
					b.Fatalf("%v %q", err, res.Content[:80])
				}
			}
		})
	}
}

// BenchmarkGrep searches a tree of 2 000 source-like files (20 directories
// of 100, ~2 KB each, one ignored directory) for a pattern that matches a
// few lines.
func BenchmarkGrep(b *testing.B) {
	s := newTestSet(b)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if else for range var const type struct interface package import err nil ctx")
	for d := range 20 {
		dir := filepath.Join(s.real, fmt.Sprintf("pkg%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			var sb strings.Builder
			for l := 0; sb.Len() < 2000; l++ {
				for range 8 {
					sb.WriteString(words[rng.IntN(len(words))])
					sb.WriteByte(' ')
				}
				if rng.IntN(500) == 0 {
					sb.WriteString("handleRequest(ctx)")
				}
				sb.WriteByte('\n')
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(s.real, ".gitignore"), []byte("pkg19/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	tool := &Grep{s: s}
	args := json.RawMessage(`{"pattern":"handle\\w+\\(ctx\\)"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Execute(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}
