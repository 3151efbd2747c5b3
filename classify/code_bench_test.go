package classify

import (
	"testing"

	"github.com/moteur/moteur/redact/redacttest"
)

// BenchmarkTextCode measures Text on 64 KiB of code, logs and JSON: text
// that folding has work on (escapes, "*" and "&" beside words), so the
// cost of the folded path on the commonest tool output.
func BenchmarkTextCode(b *testing.B) {
	s := redacttest.ToolOutput(64 << 10)
	c := mustNew(b, Rules{})
	if m, ok := c.Text(s); ok {
		b.Fatalf("marking in the code: %+v", m)
	}
	benchFolded(b, c, s)
}
