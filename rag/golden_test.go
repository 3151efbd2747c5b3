package rag_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/rag"
)

var update = flag.Bool("update", false, "rewrite the golden event streams")

// TestGoldenQuickAnswer pins the event stream of a quick answer without a
// model: what scripts reading moteur ask --json rely on.
func TestGoldenQuickAnswer(t *testing.T) {
	dir := t.TempDir()
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	s, err := kb.Open(context.Background(), kb.Config{Path: filepath.Join(t.TempDir(), "moteur.db"),
		Now:   func() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) },
		NewID: func() string { n++; return fmt.Sprintf("%016x", n) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create(context.Background(), "docs", kb.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// One worker: documents get their ids in file order.
	if _, err := s.Ingest(context.Background(), "docs", []string{dir}, kb.IngestOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	p, err := rag.New(rag.Config{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	got := goldenStream(t, p, dir)
	path := filepath.Join("testdata", "golden", "extractive.jsonl")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with go test ./rag -run TestGoldenQuickAnswer -update)", err)
	}
	if got.String() != string(want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("event %d differs from %s:\ngot  %s\nwant %s", i+1, path, gl[i], wl[i])
			}
		}
		t.Fatalf("%d events, %s has %d", len(gl)-1, path, len(wl)-1)
	}
}

// goldenStream asks the golden question of p and returns the events it
// emitted, one JSON line each, the documents' directory dir written $DIR.
func goldenStream(t *testing.T, p *rag.Pipeline, dir string) *bytes.Buffer {
	t.Helper()
	var got bytes.Buffer
	emit := func(typ event.Type, payload any, ephemeral bool) error {
		b, err := json.Marshal(map[string]any{"type": typ, "ephemeral": ephemeral, "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		got.Write(bytes.ReplaceAll(b, []byte(dir), []byte("$DIR")))
		got.WriteByte('\n')
		return nil
	}
	if _, err := p.Ask(context.Background(), "Combien de jours de congés payés par an ?", nil, emit); err != nil {
		t.Fatal(err)
	}
	return &got
}
