package agents

import (
	"fmt"
	"testing"
)

// BenchmarkLoad200 loads a catalog of 200 agent files in Claude Code's
// format.
func BenchmarkLoad200(b *testing.B) {
	dir := b.TempDir()
	for i := range 200 {
		text := fmt.Sprintf("---\nname: agent-%03d\ndescription: Agent number %d, for the tasks of its kind. Use proactively.\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n---\n\nYou are agent %d.\n\n1. Read the task\n2. Do it\n3. Report\n", i, i, i)
		if err := writeFile(dir, fmt.Sprintf("agent-%03d.md", i), text); err != nil {
			b.Fatal(err)
		}
	}
	cfg := Config{UserDir: dir, Tools: sessionTools}
	b.ReportAllocs()
	for b.Loop() {
		c, errs := Load(cfg)
		if len(errs) != 0 || len(c.List()) != 202 {
			b.Fatalf("%d agents, %v", len(c.List()), errs)
		}
	}
}
