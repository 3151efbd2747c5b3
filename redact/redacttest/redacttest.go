// Package redacttest holds what the tests of the packages that mask or
// classify text share: made-up secrets of every kind package redact
// masks, and ordinary tool output, which holds no secret and no marking.
package redacttest

import (
	"fmt"
	"strings"
)

// Secrets of each kind, made up (never real credentials).
const (
	OpenAI    = "sk-proj-Ab3dEfGh1jKlMnOpQrStUvWx"
	OpenAIOld = "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij"
	Anthropic = "sk-ant-api03-AbCdEf1234567890abcdefGHIJklmnop_-QR"
	AWS       = "AKIAIOSFODNN7EXAMPL3"
	AWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	GitHub    = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	GitHubPAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	Slack     = "xoxb-123456789012-123456789012-abcdefABCDEF"
	Google    = "AIzaSyA1234567890abcdefghijklmnopqrstuv"
	JWT       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	Bearer    = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5"
	RSA       = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yGmgAFLqAs7+4XHZLTaNPMdnAVHb3sTc2sTXdY8pwLaxa1Os6z6n\n-----END RSA PRIVATE KEY-----"
)

// EscapeAll spells every character of s as a JSON \u escape.
func EscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// ToolOutput builds n bytes of ordinary tool output, what masking and
// classification read most: a git log, Go source, JSON and prose, with
// hashes, UUIDs, plenty of "=" and ":", and the escapes, pointers, "&" and
// underscores code has.
func ToolOutput(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "commit %040x\nAuthor: Dev %d <dev%d@example.com>\nDate:   Mon Jan 2 15:04:%02d 2026 +0100\n\n", i*7919, i, i, i%60)
		fmt.Fprintf(&b, "    fix: handle the retry path (#%d); see https://example.com/issues/%d?a=1&b=2\n\n", i, i)
		b.WriteString("func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tctx := r.Context()\n\tif err := s.check(ctx); err != nil && !s.quiet {\n\t\thttp.Error(w, err.Error(), 500)\n\t\treturn\n\t}\n\tkey := r.URL.Query().Get(\"k\")\n\tfmt.Printf(\"key %q\\n\", key)\n\tvar _ = &s.cfg\n}\n")
		fmt.Fprintf(&b, `{"id":"123e4567-e89b-12d3-a456-%012d","name":"item_%d","tokens":%d,"ok":true,"ratio":0.5,"note":"a\nb \u00e9"}`+"\n", i, i, i*3)
		b.WriteString("The server keeps a token bucket per client: when the bucket is empty, requests wait. Keys are hashed.\n")
	}
	return b.String()[:n]
}
