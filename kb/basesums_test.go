package kb

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// helperEnv names the variables that make this test binary a second
// process writing the database (TestBaseSumsHelperProcess).
const (
	helperEnv     = "MOTEUR_KB_HELPER"      // "ingest" or "remove"
	helperPathEnv = "MOTEUR_KB_HELPER_PATH" // the database
	helperArgEnv  = "MOTEUR_KB_HELPER_ARG"  // the directory to ingest, the document to remove
)

// TestBaseSumsHelperProcess is not a test: run by
// TestBaseSumsStayRightAcrossProcesses in a child process, it ingests or
// removes documents of base "docs".
func TestBaseSumsHelperProcess(t *testing.T) {
	op := os.Getenv(helperEnv)
	if op == "" {
		t.Skip("helper process only")
	}
	s, err := Open(context.Background(), Config{Path: os.Getenv(helperPathEnv), NewID: randomID})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	arg := os.Getenv(helperArgEnv)
	switch op {
	case "ingest":
		rep, err := s.Ingest(context.Background(), "docs", []string{arg}, IngestOptions{})
		if err != nil || rep.Failed > 0 {
			t.Fatalf("ingest: %v %+v", err, rep)
		}
	case "remove":
		if err := s.RemoveDocument(context.Background(), "docs", arg); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown helper operation %q", op)
	}
}

func runHelper(t *testing.T, path, op, arg string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBaseSumsHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+op, helperPathEnv+"="+path, helperArgEnv+"="+arg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper %s %s: %v\n%s", op, arg, err, out)
	}
}

// TestBaseSumsStayRightAcrossProcesses: a base's document, chunk and byte
// counts are read once per generation, and are right after documents are
// added and removed by another process.
func TestBaseSumsStayRightAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, Config{Path: path})
	mustCreate(t, s, "docs", CreateOptions{})
	ctx := context.Background()
	mustIngest(t, s, "docs", writeFiles(t, map[string]string{"a.md": handbook["conges.md"]}))

	// The truth, summed afresh from the documents.
	want := func() (docs, chunks int, bytes int64) {
		t.Helper()
		err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(chunks), 0), coalesce(sum(size), 0)
			FROM kb_documents d JOIN kbs k ON k.rowid = d.kb WHERE k.name = 'docs'`).Scan(&docs, &chunks, &bytes)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	check := func(step string, wantDocs int) {
		t.Helper()
		b, err := s.Base(ctx, "docs")
		if err != nil {
			t.Fatal(err)
		}
		d, c, by := want()
		if b.Documents != d || b.Chunks != c || b.Bytes != by || d != wantDocs {
			t.Fatalf("%s: base says %d documents, %d chunks, %d bytes; the documents %d, %d, %d (want %d documents)",
				step, b.Documents, b.Chunks, b.Bytes, d, c, by, wantDocs)
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 1 || list[0].Documents != d || list[0].Chunks != c || list[0].Bytes != by {
			t.Fatalf("%s: list says %+v, %v", step, list, err)
		}
	}
	check("one document", 1)

	// The sums are cached: a document slipped in without a generation bump
	// (no writer of Moteur does that) is not seen...
	b, _ := s.Base(ctx, "docs")
	if _, err := s.w.ExecContext(ctx, `INSERT INTO kb_documents (id, kb, path, title, format, sha256, size, chunks, ingested_at)
		VALUES ('d-stray', ?, '/stray', 'Stray', 'text', '', 1000, 7, 0)`, b.rowid); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Base(ctx, "docs"); again.Documents != b.Documents || again.Chunks != b.Chunks {
		t.Fatalf("sums read again at the same generation: %d documents, cached %d", again.Documents, b.Documents)
	}
	// ... and a bump makes every reader read them again.
	if _, err := s.w.ExecContext(ctx, `UPDATE kbs SET generation = generation + 1 WHERE rowid = ?`, b.rowid); err != nil {
		t.Fatal(err)
	}
	check("a stray document and a bump", 2)

	dir := writeFiles(t, map[string]string{"b.md": handbook["teletravail.md"], "c.md": handbook["erreurs.md"], "d.md": handbook["security.md"]})
	runHelper(t, path, "ingest", dir)
	check("three documents added by another process", 5)
	runHelper(t, path, "remove", filepath.Join(dir, "c.md"))
	check("one removed by another process", 4)
	runHelper(t, path, "remove", "/stray")
	check("the stray one removed by another process", 3)
	if res := search(t, s, Query{Text: "jeton ERR_4012", Mode: ModeKeyword}); len(res.Hits) != 0 {
		t.Fatalf("a document removed by another process still found: %s", titles(res.Hits))
	}
	if res := search(t, s, Query{Text: "VPN firewalls", Mode: ModeKeyword}); len(res.Hits) == 0 {
		t.Fatal("a document added by another process not found")
	}
}
