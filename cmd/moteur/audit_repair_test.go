package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/provider/openai/openaitest"
)

// TestAuditRepairOfATamperedLogSaysWhereAndRepairsNothing: a log whose
// lines are all whole but whose second record was changed is not damage a
// repair explains: audit repair says it is tampered, at which record, line
// and seq, and leaves the file byte for byte as it was.
func TestAuditRepairOfATamperedLogSaysWhereAndRepairsNothing(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	const id = "s-tampered"
	if res := h.run(t, "run", "--new-session", id, "remember tamper-me"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	path := h.auditFile(id)

	// A sound log: nothing to repair, as before.
	res := h.run(t, "audit", "repair", path)
	if res.code != 1 || !strings.Contains(res.stderr, "nothing to repair") {
		t.Errorf("repair of a sound log: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}

	// One byte of the user's message (record 1, line 2, seq 2) changed.
	b := []byte(readFile(t, path))
	i := strings.Index(string(b), "tamper-me")
	if i < 0 || strings.Count(string(b), "\n") < 3 {
		t.Fatalf("the audit log does not hold the prompt in a middle record:\n%s", b)
	}
	b[i] ^= 0x01
	must(t, os.WriteFile(path, b, 0o600))

	res = h.run(t, "audit", "repair", path)
	if res.code != 1 || res.stdout != "" || strings.Contains(res.stderr, "nothing to repair") ||
		!strings.Contains(res.stderr, "audit log "+path+": tampered at record 1 (line 2, seq 2): ") ||
		!strings.Contains(res.stderr, "nothing was repaired") {
		t.Errorf("repair of a tampered log: exit %d, stdout %q, stderr %q; want 1 saying where it is tampered", res.code, res.stdout, res.stderr)
	}
	if got := readFile(t, path); got != string(b) {
		t.Error("a refused repair changed the log")
	}
	if aside, _ := filepath.Glob(path + ".torn-*"); len(aside) != 0 {
		t.Errorf("a refused repair set something aside: %v", aside)
	}
	// audit verify agrees on the place.
	if res := h.run(t, "audit", "verify", id); res.code != 1 || !strings.Contains(res.stdout, "broken "+path+": record 1 (line 2): ") {
		t.Errorf("audit verify: exit %d, stdout %q", res.code, res.stdout)
	}
}
