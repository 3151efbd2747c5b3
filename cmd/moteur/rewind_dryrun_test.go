package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree hashes every file under the directories: path → SHA-256.
func tree(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[path] = hex.EncodeToString(sum[:])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// untouched is what a rewind that does nothing must leave as it was: the
// project's files, the session's audit log, transcript and checkpoints,
// and its stored events.
func untouched(t *testing.T, h *harness, id string) (snapshot func() map[string]string) {
	t.Helper()
	return func() map[string]string {
		m := tree(t, h.dir, filepath.Join(h.home(), "audit"), filepath.Join(h.home(), "transcripts"), filepath.Join(h.home(), "checkpoints"))
		m["stored events"] = jsonLines(t, h.load(t, id))
		return m
	}
}

func TestRewindDryRunShowsThePlanAndChangesNothing(t *testing.T) {
	h, to := conflicted(t)
	snapshot := untouched(t, h, "s-conf")
	before := snapshot()
	if before[filepath.Join(h.dir, "notes.txt")] == "" || before[h.auditFile("s-conf")] == "" || before[h.transcriptFile("s-conf")] == "" {
		t.Fatalf("nothing to compare: %v", slices.Collect(maps.Keys(before)))
	}

	// Off a terminal, without --yes: the plan, and nothing done.
	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--dry-run")
	if res.code != 0 || !strings.Contains(res.stdout, "Rewind of session s-conf to seq "+to+" (code)") ||
		!strings.Contains(res.stdout, "  conflict  notes.txt  changed since this session last wrote it: left alone (--overwrite notes.txt would restore its content at the point)\n") ||
		!strings.Contains(res.stderr, "dry run: nothing was changed") {
		t.Errorf("--dry-run: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	// On a terminal, with an answer ready and the conflict forced: still
	// nothing asked, nothing done.
	h.tty, h.stdin = true, strings.NewReader("y\n")
	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "both", "--overwrite", "notes.txt", "--dry-run")
	if res.code != 0 || strings.Contains(res.stderr, "[y/N]") ||
		!strings.Contains(res.stdout, "the conversation goes back to before: rewrite the notes\n") ||
		!strings.Contains(res.stdout, "--overwrite: restore its content at the point\n") {
		t.Errorf("--dry-run on a terminal: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	h.tty = false

	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--dry-run", "--json")
	var out struct {
		Session string          `json:"session"`
		ToSeq   json.Number     `json:"to_seq"`
		Mode    string          `json:"mode"`
		DryRun  bool            `json:"dry_run"`
		Result  json.RawMessage `json:"result"`
		Plan    struct {
			Files []struct {
				Path    string `json:"path"`
				Status  string `json:"status"`
				Restore string `json:"restore"`
			} `json:"files"`
		} `json:"plan"`
	}
	decodeOnly(t, res.stdout, &out)
	if res.code != 0 || out.Session != "s-conf" || out.ToSeq.String() != to || out.Mode != "code" || !out.DryRun || out.Result != nil ||
		len(out.Plan.Files) != 1 || out.Plan.Files[0].Path != "notes.txt" || out.Plan.Files[0].Status != "conflict" || out.Plan.Files[0].Restore == "" {
		t.Errorf("--dry-run --json: exit %d, %+v\nstdout %s", res.code, out, res.stdout)
	}

	if after := snapshot(); !maps.Equal(after, before) {
		t.Errorf("a dry run changed something:\nbefore %v\nafter  %v", before, after)
	}
	// The lease was released.
	if _, err := h.store(t).Acquire(t.Context(), "s-conf"); err != nil {
		t.Errorf("lease still held: %v", err)
	}
}

func TestRewindOffATerminalShowsThePlanBeforeRefusing(t *testing.T) {
	h, to := conflicted(t)
	snapshot := untouched(t, h, "s-conf")
	before := snapshot()

	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--overwrite", "notes.txt")
	if res.code != 2 || !strings.Contains(res.stdout, "  conflict  notes.txt  changed since this session last wrote it; --overwrite: restore its content at the point\n") ||
		!strings.Contains(res.stderr, "pass --yes when standard input is not a terminal (the plan above is what it would do; nothing was changed)") ||
		strings.Contains(res.stderr, "[y/N]") {
		t.Errorf("without --yes off a terminal: exit %d, stdout %q, stderr %q; want the plan, then 2", res.code, res.stdout, res.stderr)
	}
	// With --json the plan goes to stderr: stdout holds JSON or nothing.
	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--json")
	if res.code != 2 || res.stdout != "" || !strings.Contains(res.stderr, "  conflict  notes.txt") {
		t.Errorf("--json without --yes off a terminal: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if after := snapshot(); !maps.Equal(after, before) {
		t.Errorf("a refused rewind changed something:\nbefore %v\nafter  %v", before, after)
	}
}
