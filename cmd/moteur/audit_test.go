package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moteur/moteur/provider/openai/openaitest"
)

func TestAuditVerify(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"), openaitest.Answer("B"))
	h := newHarness(t, srv.BaseURL())
	for _, id := range []string{"s-one", "s-two"} {
		if res := h.run(t, "run", "--new-session", id, "remember tamper-me"); res.code != 0 {
			t.Fatalf("run: exit %d: %s", res.code, res.stderr)
		}
	}
	one, two := h.auditFile("s-one"), h.auditFile("s-two")
	res := h.run(t, "audit", "verify")
	if want := "ok 4 records  " + one + "\nok 4 records  " + two + "\n"; res.code != 0 || res.stdout != want || res.stderr != "" {
		t.Fatalf("fresh logs: exit %d, stdout %q, stderr %q; want %q", res.code, res.stdout, res.stderr, want)
	}

	// One byte of the user's message (record 1, line 2) changed.
	b, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "tamper-me")
	if i < 0 {
		t.Fatalf("the audit log does not hold the prompt:\n%s", b)
	}
	b[i] ^= 0x01
	if err := os.WriteFile(two, b, 0o600); err != nil {
		t.Fatal(err)
	}
	res = h.run(t, "audit", "verify")
	broken := regexp.MustCompile(`^broken ` + regexp.QuoteMeta(two) + `: record 1 \(line 2\): \S.*\n$`)
	if res.code != 1 || !strings.HasPrefix(res.stdout, "ok 4 records  "+one+"\n") ||
		!broken.MatchString(strings.TrimPrefix(res.stdout, "ok 4 records  "+one+"\n")) ||
		res.stderr != "moteur: 1 of 2 audit logs failed verification\n" {
		t.Errorf("tampered log: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}

	// Named files only; a missing one is unreadable.
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	res = h.run(t, "audit", "verify", one, missing)
	if res.code != 1 || !strings.HasPrefix(res.stdout, "ok 4 records  "+one+"\nunreadable "+missing+": ") {
		t.Errorf("named files: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}

	h = newHarness(t, srv.BaseURL())
	res = h.run(t, "audit", "verify")
	if res.code != 0 || res.stdout != "" || !strings.Contains(res.stderr, "no audit logs in") {
		t.Errorf("no logs: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

// A log whose last record is torn (a power loss in the middle of a write)
// is not continued: the audit sink refuses to chain after it. The session
// is then refused with a clear error, and nothing is appended.
func TestRunRefusesToContinueAfterATornAuditLog(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-torn", "hi"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	path := h.auditFile("s-torn")
	b := []byte(readFile(t, path))
	if err := os.WriteFile(path, b[:len(b)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	stored := jsonLines(t, h.load(t, "s-torn"))
	res := h.run(t, "run", "--session", "s-torn", "again")
	if res.code != 1 || !strings.Contains(res.stderr, "session s-torn") || !strings.Contains(res.stderr, path) ||
		!strings.Contains(res.stderr, "truncated record") {
		t.Errorf("exit %d, stderr %q; want 1 naming the session, the log and the torn record", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want only the first run's", n)
	}
	if got := jsonLines(t, h.load(t, "s-torn")); got != stored {
		t.Errorf("the store changed:\n%s", got)
	}
	if !strings.Contains(res.stderr, "moteur audit repair "+path) {
		t.Errorf("stderr %q does not say how to repair the log", res.stderr)
	}
	// audit repair sets the torn record aside; the session continues.
	rep := h.run(t, "audit", "repair", path)
	if rep.code != 0 || !strings.Contains(rep.stdout, ".torn-") || !strings.Contains(rep.stdout, "ok ") {
		t.Fatalf("audit repair: exit %d, %q %q", rep.code, rep.stdout, rep.stderr)
	}
	srv2 := openaitest.NewServer(t, openaitest.Answer("B"))
	h.env["MOTEUR_BASE_URL"] = srv2.BaseURL()
	if res := h.run(t, "run", "--session", "s-torn", "again"); res.code != 0 {
		t.Errorf("after the repair the session must continue: exit %d, %s", res.code, res.stderr)
	}
	if res := h.run(t, "audit", "verify", path); res.code != 0 {
		t.Errorf("the continued log does not verify: %s%s", res.stdout, res.stderr)
	}
}
