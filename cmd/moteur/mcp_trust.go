package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/moteur/moteur/app"
)

// confirmTrust asks on the terminal whether to trust a project's .mcp.json,
// showing what trusting it starts. The answer is read a byte at a time, so
// that nothing after its line is taken from standard input.
func (c *cli) confirmTrust(p app.TrustRequest) (bool, error) {
	var b strings.Builder
	fmt.Fprintf(&b, c.tr("This project's %s runs %s that came with its code:\n"), p.Path, c.trustWhat(p.What))
	for _, s := range p.Items {
		fmt.Fprintf(&b, "  %s\n", oneLine(s, 300))
	}
	fmt.Fprintf(&b, c.tr("They run with your rights. Trust them (sha256 %s…)? [y/N] "), p.SHA256[:min(12, len(p.SHA256))])
	if _, err := io.WriteString(c.stderr, b.String()); err != nil {
		return false, err
	}
	answer, err := readAnswer(c.stdin)
	if err != nil && answer == "" {
		return false, nil // no answer: not trusted
	}
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes", nil
}

// trustWhat names, in the run's language, what a trust request starts:
// app names it in English.
func (c *cli) trustWhat(what string) string {
	switch what {
	case "hooks":
		return c.tr("hooks")
	case "MCP servers":
		return c.tr("MCP servers")
	}
	return what
}

// readAnswer reads one line from r, a byte at a time.
func readAnswer(r io.Reader) (string, error) {
	var line []byte
	buf := make([]byte, 1)
	for len(line) < 1024 {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return string(line), nil
			}
			line = append(line, buf[0])
		}
		if err != nil {
			return string(line), err
		}
	}
	return string(line), nil
}
