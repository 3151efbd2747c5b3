package classify

import (
	"fmt"
	"strings"
	"testing"
)

// codeText builds n bytes of ordinary tool output: a git log, Go source,
// JSON and prose, with the escapes, pointers and underscores code has.
func codeText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "commit %040x\nAuthor: Dev %d <dev%d@example.com>\nDate:   Mon Jan 2 15:04:%02d 2026 +0100\n\n", i*7919, i, i, i%60)
		fmt.Fprintf(&b, "    fix: handle the retry path (#%d); see https://example.com/issues/%d?a=1&b=2\n\n", i, i)
		b.WriteString("func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tctx := r.Context()\n\tif err := s.check(ctx); err != nil && !s.quiet {\n\t\thttp.Error(w, err.Error(), 500)\n\t\treturn\n\t}\n\tfmt.Printf(\"key %q\\n\", r.URL.Query().Get(\"k\"))\n\tvar _ = &s.cfg\n}\n")
		fmt.Fprintf(&b, `{"id":"123e4567-e89b-12d3-a456-%012d","name":"item_%d","tokens":%d,"ok":true,"note":"a\nb \u00e9"}`+"\n", i, i, i*3)
		b.WriteString("The server keeps a token bucket per client: when the bucket is empty, requests wait. Keys are hashed.\n")
	}
	return b.String()[:n]
}

// BenchmarkTextCode measures Text on 64 KiB of code, logs and JSON: text
// that folding has work on (escapes, "*" and "&" beside words), so the
// cost of the folded path on the commonest tool output.
func BenchmarkTextCode(b *testing.B) {
	s := codeText(64 << 10)
	c := mustNew(b, Rules{})
	if m, ok := c.Text(s); ok {
		b.Fatalf("marking in the code: %+v", m)
	}
	benchFolded(b, c, s)
}
