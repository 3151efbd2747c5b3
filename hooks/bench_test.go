package hooks

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkRoundTrip is one PreToolUse hook (the command true) per tool
// call: encode the input in Claude Code's shape, start /bin/sh, wait, read
// the result.
func BenchmarkRoundTrip(b *testing.B) {
	s, errs := New(Config{Sources: []Source{{File: "f", Events: map[string][]Group{"PreToolUse": one("Bash", "true")}}}, ProjectDir: b.TempDir()})
	if len(errs) != 0 {
		b.Fatal(errs)
	}
	in := Input{Event: PreToolUse, SessionID: "s", CWD: b.TempDir(), ToolName: "shell_exec", ToolInput: json.RawMessage(`{"command":"go test ./...","timeout_sec":60}`)}
	b.ReportAllocs()
	for b.Loop() {
		if o := s.Run(context.Background(), in, nil); o.Block {
			b.Fatal("blocked")
		}
	}
}

// BenchmarkNoMatch is the cost of a tool call no hook matches.
func BenchmarkNoMatch(b *testing.B) {
	s, _ := New(Config{Sources: []Source{{File: "f", Events: map[string][]Group{"PreToolUse": one("Write|Edit", "true")}}}})
	in := Input{Event: PreToolUse, ToolName: "shell_exec", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	b.ReportAllocs()
	for b.Loop() {
		s.Run(context.Background(), in, nil)
	}
}
