package shellcmd_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools/shell"
)

// CorpusRules are the rules every line of testdata/corpus.txt is judged
// under.
var CorpusRules = policy.Rules{
	Allow: []string{"shell_exec(git status*)", "shell_exec(go test*)", "shell_exec(ls*)"},
	Deny:  []string{"shell_exec(rm*)", "shell_exec(curl*)"},
}

var modes = []policy.Mode{policy.ReadOnly, policy.Confirm, policy.AutoWrite}

// judge decides shell_exec calls as the engine does: the risk from the
// tool's RiskOf, the confirmation from its MustConfirm, the verdict from
// policy.Permissions.Check under CorpusRules.
type judge struct {
	exec  *shell.Exec
	root  string
	perms map[policy.Mode]*policy.Permissions
}

// existingFile is the file of the judge's project that a > overwrites.
const existingFile = "existing.txt"

func newJudge(tb testing.TB) *judge {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, existingFile), []byte("keep me\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	e, err := shell.New(shell.Config{Root: root, Sandbox: shell.SandboxNone})
	if err != nil {
		tb.Fatal(err)
	}
	j := &judge{exec: e, root: root, perms: map[policy.Mode]*policy.Permissions{}}
	for _, m := range modes {
		p, err := policy.NewPermissions(policy.PermissionsConfig{Mode: m, Rules: CorpusRules, Root: root})
		if err != nil {
			tb.Fatal(err)
		}
		j.perms[m] = p
	}
	return j
}

// request is the policy request the engine would make for a call.
func (j *judge) request(raw json.RawMessage) policy.Request {
	return policy.Request{Session: "s", Tool: shell.Name, Risk: j.exec.RiskOf(raw), Args: raw, Confirm: j.exec.MustConfirm(raw)}
}

func (j *judge) decide(m policy.Mode, command string) policy.Verdict {
	raw, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		panic(err)
	}
	return j.perms[m].Check(j.request(raw))
}

// corpusLine is one line of testdata/corpus.txt.
type corpusLine struct {
	class   string                 // risk class: probe, write, destructive
	want    map[policy.Mode]string // allow, ask, deny
	command string
	line    int
}

// loadCorpus reads testdata/corpus.txt: blank lines and lines starting
// with # are comments; every other line is
//
//	CLASS READ_ONLY CONFIRM AUTO_WRITE COMMAND
//
// where COMMAND runs to the end of the line, or is written q:"…" as a Go
// string literal (for newlines and tabs).
func loadCorpus(tb testing.TB) []corpusLine {
	tb.Helper()
	f, err := os.Open("testdata/corpus.txt")
	if err != nil {
		tb.Fatalf("corpus: %v", err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		c, err := parseCorpusLine(text)
		if err != nil {
			tb.Fatalf("testdata/corpus.txt:%d: %v", n, err)
		}
		c.line = n
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("corpus: %v", err)
	}
	return out
}

func parseCorpusLine(text string) (corpusLine, error) {
	var c corpusLine
	rest := text
	var fields [4]string
	for i := range fields {
		rest = strings.TrimLeft(rest, " \t")
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			return c, fmt.Errorf("want CLASS READ_ONLY CONFIRM AUTO_WRITE COMMAND, got %q", text)
		}
		fields[i], rest = rest[:end], rest[end:]
	}
	switch fields[0] {
	case "probe", "write", "destructive":
	default:
		return c, fmt.Errorf("class %q is not probe, write or destructive", fields[0])
	}
	c.class = fields[0]
	c.want = map[policy.Mode]string{}
	for i, m := range modes {
		switch d := fields[i+1]; d {
		case "allow", "ask", "deny":
			c.want[m] = d
		default:
			return c, fmt.Errorf("decision %q is not allow, ask or deny", d)
		}
	}
	c.command = strings.TrimLeft(rest, " \t")
	if q, ok := strings.CutPrefix(c.command, "q:"); ok {
		s, err := strconv.Unquote(q)
		if err != nil {
			return c, fmt.Errorf("command %s: %w", c.command, err)
		}
		c.command = s
	}
	if c.command == "" {
		return c, fmt.Errorf("no command in %q", text)
	}
	return c, nil
}

// TestCorpus judges every line of testdata/corpus.txt as the engine would
// and compares the risk class and the decision in each mode.
func TestCorpus(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 150 {
		t.Errorf("the corpus has %d commands, want at least 150", len(corpus))
	}
	j := newJudge(t)
	for _, c := range corpus {
		raw, _ := json.Marshal(map[string]string{"command": c.command})
		if got := string(j.exec.RiskOf(raw)); got != c.class {
			t.Errorf("corpus.txt:%d: RiskOf(%q) = %s, want %s", c.line, c.command, got, c.class)
		}
		for _, m := range modes {
			v := j.decide(m, c.command)
			if got := v.Decision.String(); got != c.want[m] {
				t.Errorf("corpus.txt:%d: %s: %q = %s (%s: %s), want %s", c.line, m, c.command, got, v.Rule, v.Reason, c.want[m])
			}
		}
	}
}
