package main

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/event/audittest"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// TestRewindRestoresAnEncryptedCheckpointAndRefusesWithoutTheKey: the
// agent overwrites a file holding a token; its checkpoint is sealed (the
// token is nowhere under $MOTEUR_HOME/checkpoints). With the key file
// gone, the rewind is refused, naming the file, and touches nothing; with
// the key back, the same rewind restores the file byte for byte.
func TestRewindRestoresAnEncryptedCheckpointAndRefusesWithoutTheKey(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "write_file", writeNotes("token rotated\n")),
		openaitest.Answer("written"))
	h := newHarness(t, srv.BaseURL())
	cfgHome := h.env["XDG_CONFIG_HOME"]
	if cfgHome == "" {
		t.Fatal("the harness sets no XDG_CONFIG_HOME: the key would land in the real configuration directory")
	}
	keyFile := filepath.Join(cfgHome, "moteur", atrest.FileName)
	notes := filepath.Join(h.dir, "notes.txt")
	var rnd [24]byte
	_, _ = rand.Read(rnd[:])
	token := "sk-proj-" + hex.EncodeToString(rnd[:])
	original := []byte("API_TOKEN=" + token + "\nAPI_URL=https://api.example.com\n")
	if err := os.WriteFile(notes, original, 0o600); err != nil {
		t.Fatal(err)
	}

	if res := h.run(t, "run", "--mode", "auto_write", "--allow", "write_file(notes.txt)", "--new-session", "s-enc", "rotate the token"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	if got := readFile(t, notes); got != "token rotated\n" {
		t.Fatalf("notes.txt %q: the agent did not write it", got)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v, %v; want it created, mode 0600", keyFile, fi, err)
	}
	// The checkpoint exists, sealed: one blob, and no trace of the token.
	var blobs [][]byte
	err := filepath.WalkDir(app.CheckpointDir(h.home()), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		blobs = append(blobs, b)
		if strings.Contains(p, token) {
			t.Errorf("blob file %s is named after the token", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 1 || !atrest.IsSealed(blobs[0]) || bytes.Contains(blobs[0], []byte(token)) {
		t.Fatalf("checkpoints: %d blobs (want 1, sealed, without the token)", len(blobs))
	}
	to := strconv.FormatUint(h.pointOf(t, "s-enc", "rotate the token"), 10)
	stored := len(h.load(t, "s-enc"))

	if err := os.Rename(keyFile, keyFile+".bak"); err != nil {
		t.Fatal(err)
	}
	res := h.run(t, "sessions", "rewind", "s-enc", "--to", to, "--mode", "code", "--yes")
	if res.code != 1 || !strings.Contains(res.stderr, keyFile) || !strings.Contains(res.stderr, "does not exist") {
		t.Fatalf("rewind without the key: exit %d, stderr %q; want a refusal naming %s", res.code, res.stderr, keyFile)
	}
	if got := readFile(t, notes); got != "token rotated\n" {
		t.Fatalf("notes.txt %q after a refused rewind, want it untouched", got)
	}
	if n := len(h.load(t, "s-enc")); n != stored {
		t.Fatalf("a refused rewind stored %d events", n-stored)
	}
	if _, err := os.Stat(keyFile); !os.IsNotExist(err) {
		t.Fatalf("the refused rewind made a key in place of the missing one: %v", err)
	}

	if err := os.Rename(keyFile+".bak", keyFile); err != nil {
		t.Fatal(err)
	}
	res = h.run(t, "sessions", "rewind", "s-enc", "--to", to, "--mode", "code", "--yes")
	if res.code != 0 || !strings.Contains(res.stdout, "ok  notes.txt  restored\n") {
		t.Fatalf("rewind with the key: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got, err := os.ReadFile(notes); err != nil || !bytes.Equal(got, original) {
		t.Fatalf("notes.txt after the rewind: %q, %v; want its original bytes", got, err)
	}
	rw := payloads[event.RewoundPayload](h.load(t, "s-enc"))
	if len(rw) != 1 || len(rw[0].Files) != 1 || rw[0].Files[0].Status != "ok" {
		t.Fatalf("stored Rewound %+v", rw)
	}
}

// TestRewindOfAnUnkeyedDataDirectoryReadsItsClearCheckpoints: a data
// directory only earlier versions used has clear checkpoints and no key;
// a rewind, which must not make a key, still restores from them, and the
// next run, making the key, seals them.
func TestRewindOfAnUnkeyedDataDirectoryReadsItsClearCheckpoints(t *testing.T) {
	h, to := conflicted(t) // notes.txt: "original" → agent → "mine"
	keyFile := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur", atrest.FileName)
	// Back to the state of an earlier version: no key, no key id, the
	// blob in clear under its hash, an unkeyed audit log and no heads in
	// the store.
	id := checkpoint.HashOf([]byte("original\n"))
	clear := filepath.Join(app.CheckpointDir(h.home()), id[:2], id[2:])
	for _, p := range []string{keyFile, filepath.Join(h.home(), "key-id"), filepath.Join(app.CheckpointDir(h.home()), "sealed")} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(clear), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clear, []byte("original\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := app.AuditPath(h.home(), "s-conf")
	log, err := os.ReadFile(logPath)
	must(t, err)
	must(t, os.WriteFile(logPath, audittest.Rehash(t, log, nil), 0o600))
	db, err := sql.Open("sqlite", session.DefaultPath(h.home()))
	must(t, err)
	_, err = db.Exec(`UPDATE events SET audit_mac = NULL WHERE session_id = ?`, "s-conf")
	must(t, errors.Join(err, db.Close()))

	// The rewind records a Rewound event, so it makes the key (the data
	// directory named none: nothing was sealed with another), reads the
	// clear copy, and seals it.
	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--yes", "--overwrite", "notes.txt")
	if res.code != 0 || readFile(t, filepath.Join(h.dir, "notes.txt")) != "original\n" {
		t.Fatalf("rewind: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(keyFile); err != nil {
		t.Fatalf("the rewind made no key: %v", err)
	}

	// The session goes on under the new key, and no blob is left in clear.
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h.env["MOTEUR_BASE_URL"] = srv.BaseURL()
	if res := h.run(t, "run", "hello"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	if _, err := os.Stat(clear); !os.IsNotExist(err) {
		t.Fatalf("clear blob %s still there after a run with the key: %v", clear, err)
	}
	err = filepath.WalkDir(app.CheckpointDir(h.home()), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && !atrest.IsSealed(b) {
			t.Errorf("blob %s left in clear", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
