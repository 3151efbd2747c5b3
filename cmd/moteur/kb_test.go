package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// kbDocs are three small Markdown documents, each on its own subject.
var kbDocs = map[string]string{
	"conges.md":      "# Congés payés\n\nChaque salarié acquiert 2,5 jours ouvrables de congés payés par mois de travail effectif, soit 30 jours par an.\n",
	"teletravail.md": "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période d'essai.\n",
	"frais.md":       "# Notes de frais\n\nLes notes de frais sont remboursées sous quinze jours sur présentation des justificatifs.\n",
}

// storedID matches the stored id of a knowledge base, document or chunk:
// what a model must never read.
var storedID = regexp.MustCompile(`\b(d|kb)-[0-9a-f]{16}`)

// chunkID is the stored id of a chunk.
var chunkID = regexp.MustCompile(`^d-[0-9a-f]{16}-\d+$`)

// newKBHarness is a harness without any model configured: only the data
// directory and empty XDG directories.
func newKBHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, "")
	h.env = map[string]string{
		"MOTEUR_HOME":     h.home(),
		"XDG_CONFIG_HOME": t.TempDir(),
		"XDG_DATA_HOME":   t.TempDir(),
		// The tests read the English texts; French runs set fr.
		"MOTEUR_LANG": "en",
	}
	return h
}

// writeDocs writes files into a new temporary folder and returns it.
func writeDocs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// withBase creates base name in h and adds kbDocs to it; it returns the
// folder of the documents.
func withBase(t *testing.T, h *harness, name string) string {
	t.Helper()
	dir := writeDocs(t, kbDocs)
	if res := h.run(t, "kb", "create", name); res.code != 0 {
		t.Fatalf("kb create %s: exit %d, stderr %q", name, res.code, res.stderr)
	}
	if res := h.run(t, "kb", "add", name, dir); res.code != 0 {
		t.Fatalf("kb add %s: exit %d, stdout %q, stderr %q", name, res.code, res.stdout, res.stderr)
	}
	return dir
}

// searchJSON is the --json output of kb search.
type searchJSON struct {
	Hits []struct {
		Chunk    string  `json:"chunk"`
		Document string  `json:"document"`
		BaseName string  `json:"base_name"`
		Title    string  `json:"title"`
		Path     string  `json:"path"`
		Text     string  `json:"text"`
		Score    float64 `json:"score"`
	} `json:"hits"`
	RequestedMode string `json:"requested_mode"`
	Fallbacks     []struct {
		Base   string `json:"base"`
		From   string `json:"from"`
		To     string `json:"to"`
		Reason string `json:"reason"`
	} `json:"mode_fallbacks"`
}

func kbSearch(t *testing.T, h *harness, base string, query ...string) searchJSON {
	t.Helper()
	res := h.run(t, append([]string{"kb", "search", base, "--json"}, query...)...)
	if res.code != 0 {
		t.Fatalf("kb search: exit %d, stderr %q", res.code, res.stderr)
	}
	var out searchJSON
	decodeOnly(t, res.stdout, &out)
	return out
}

// decodeOnly decodes the single JSON value of s into v, failing the test
// when s holds anything else.
func decodeOnly(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout:\n%s", s)
	}
}

// ingestJSON is the --json report of kb add.
type ingestJSON struct {
	Base  string `json:"base"`
	Files []struct {
		Path     string `json:"path"`
		Status   string `json:"status"`
		Document string `json:"document"`
		Chunks   int    `json:"chunks"`
		Error    string `json:"error"`
	} `json:"files"`
	Added     *int `json:"added"`
	Updated   *int `json:"updated"`
	Unchanged *int `json:"unchanged"`
	Failed    *int `json:"failed"`
	Chunks    int  `json:"chunks"`
}

func (r ingestJSON) statuses() map[string]string {
	m := map[string]string{}
	for _, f := range r.Files {
		m[filepath.Base(f.Path)] = f.Status
	}
	return m
}

func TestKBAddReportsFailedFilesAndIndexesTheRest(t *testing.T) {
	h := newKBHarness(t)
	files := map[string]string{"vide.md": "", "image.bin": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"}
	for k, v := range kbDocs {
		files[k] = v
	}
	dir := writeDocs(t, files)

	res := h.run(t, "kb", "create", "docs")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "Created knowledge base docs ") {
		t.Fatalf("kb create: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}

	res = h.run(t, "kb", "add", "docs", dir)
	if res.code != 1 {
		t.Errorf("kb add with two bad files: exit %d, want 1; stderr %q", res.code, res.stderr)
	}
	if !regexp.MustCompile(`^docs: 3 added, 0 updated, 0 unchanged, 2 failed · 3 passages · `).MatchString(res.stdout) {
		t.Errorf("summary does not say 3 added, 2 failed, 3 passages:\n%s", res.stdout)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  failed  \S*vide\.md: .*empty`),
		regexp.MustCompile(`(?m)^  failed  \S*image\.bin: .*binary`),
	} {
		if !want.MatchString(res.stdout) {
			t.Errorf("stdout does not name the failed file with its reason (%s):\n%s", want, res.stdout)
		}
	}
	for name := range kbDocs {
		if strings.Contains(res.stdout, "failed  "+filepath.Join(dir, name)) {
			t.Errorf("good file %s reported as failed:\n%s", name, res.stdout)
		}
	}
	if !strings.Contains(res.stderr, "2 file(s) could not be added") {
		t.Errorf("stderr %q, want the count of failed files", res.stderr)
	}

	// The good files are searchable; the base has no vectors, so the
	// hybrid search the user asked for ran in keyword mode, and says so.
	out := kbSearch(t, h, "docs", "congés", "payés")
	if len(out.Hits) == 0 || out.Hits[0].Title != "Congés payés" || out.Hits[0].BaseName != "docs" ||
		filepath.Base(out.Hits[0].Path) != "conges.md" || !strings.Contains(out.Hits[0].Text, "30 jours par an") {
		t.Errorf("search for congés payés: hits %+v, want conges.md first", out.Hits)
	}
	if out.RequestedMode != "hybrid" {
		t.Errorf("requested_mode %q, want hybrid", out.RequestedMode)
	}
	if len(out.Fallbacks) != 1 || out.Fallbacks[0].Base != "docs" || out.Fallbacks[0].From != "hybrid" ||
		out.Fallbacks[0].To != "keyword" || out.Fallbacks[0].Reason == "" {
		t.Errorf("mode_fallbacks %+v, want docs: hybrid → keyword with its reason", out.Fallbacks)
	}
	out = kbSearch(t, h, "docs", "--mode", "keyword", "remboursées", "justificatifs")
	if len(out.Hits) == 0 || out.Hits[0].Title != "Notes de frais" || len(out.Fallbacks) != 0 {
		t.Errorf("keyword search: hits %+v, fallbacks %+v; want Notes de frais, no fallback", out.Hits, out.Fallbacks)
	}
	if out.RequestedMode != "keyword" {
		t.Errorf("requested_mode %q, want keyword", out.RequestedMode)
	}

	// The plain output shows the hit, and the fallback when the user
	// chose the mode.
	res = h.run(t, "kb", "search", "docs", "télétravail")
	if res.code != 0 || !regexp.MustCompile(`^1\. Télétravail — teletravail\.md › Télétravail  \(score \d\.\d\d\)\n   \S`).MatchString(res.stdout) {
		t.Errorf("kb search text: exit %d, stdout:\n%s\nstderr %q", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "kb", "search", "--mode", "semantic", "docs", "télétravail")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "note: docs searched in keyword mode instead of semantic: ") ||
		!strings.Contains(res.stdout, "1. Télétravail — teletravail.md") {
		t.Errorf("kb search --mode semantic: exit %d, stdout:\n%s\nstderr %q", res.code, res.stdout, res.stderr)
	}
}

func TestKBAddTwiceReportsUnchanged(t *testing.T) {
	h := newKBHarness(t)
	dir := writeDocs(t, kbDocs)
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Fatalf("kb create: exit %d, stderr %q", res.code, res.stderr)
	}
	res := h.run(t, "kb", "add", "docs", dir)
	if res.code != 0 || !strings.HasPrefix(res.stdout, "docs: 3 added, 0 updated, 0 unchanged, 0 failed · 3 passages") {
		t.Fatalf("first add: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "kb", "add", "docs", dir)
	if res.code != 0 || !strings.HasPrefix(res.stdout, "docs: 0 added, 0 updated, 3 unchanged, 0 failed · 0 passages") {
		t.Errorf("second add: exit %d, stdout %q, stderr %q; want 3 unchanged", res.code, res.stdout, res.stderr)
	}
	if strings.Contains(res.stdout, "failed  ") || res.stderr != "" {
		t.Errorf("second add reports a failure: stdout %q, stderr %q", res.stdout, res.stderr)
	}

	res = h.run(t, "kb", "add", "docs", dir, "--json")
	if res.code != 0 {
		t.Fatalf("add --json: exit %d, stderr %q", res.code, res.stderr)
	}
	var rep ingestJSON
	decodeOnly(t, res.stdout, &rep)
	if rep.Added == nil || rep.Updated == nil || rep.Unchanged == nil || rep.Failed == nil {
		t.Fatalf("report lacks added/updated/unchanged/failed: %s", res.stdout)
	}
	if rep.Base != "docs" || *rep.Added != 0 || *rep.Updated != 0 || *rep.Unchanged != 3 || *rep.Failed != 0 || len(rep.Files) != 3 {
		t.Errorf("report %s, want 3 unchanged files of docs", res.stdout)
	}
	for _, f := range rep.Files {
		if f.Status != "unchanged" || f.Error != "" {
			t.Errorf("file %s: status %q, error %q; want unchanged", f.Path, f.Status, f.Error)
		}
	}

	// A changed file replaces its old version; the others stay unchanged.
	if err := os.WriteFile(filepath.Join(dir, "teletravail.md"),
		[]byte("# Télétravail\n\nLe travail à distance est ouvert trois jours hebdomadaires dès l'embauche.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res = h.run(t, "kb", "add", "docs", dir, "--json")
	if res.code != 0 {
		t.Fatalf("add after a change: exit %d, stderr %q", res.code, res.stderr)
	}
	rep = ingestJSON{}
	decodeOnly(t, res.stdout, &rep)
	want := map[string]string{"conges.md": "unchanged", "frais.md": "unchanged", "teletravail.md": "updated"}
	if rep.Updated == nil || rep.Unchanged == nil {
		t.Fatalf("report lacks updated/unchanged: %s", res.stdout)
	}
	if got := rep.statuses(); !maps.Equal(got, want) || *rep.Updated != 1 || *rep.Unchanged != 2 {
		t.Errorf("statuses %v (updated %d, unchanged %d), want %v", got, *rep.Updated, *rep.Unchanged, want)
	}
	for _, f := range rep.Files {
		if f.Status == "updated" && (!storedID.MatchString(f.Document) || f.Chunks != 1) {
			t.Errorf("updated file: document %q, %d chunks", f.Document, f.Chunks)
		}
	}
	if out := kbSearch(t, h, "docs", "--mode", "keyword", "période", "essai"); len(out.Hits) != 0 {
		t.Errorf("the old version of teletravail.md is still found: %+v", out.Hits)
	}
	if out := kbSearch(t, h, "docs", "--mode", "keyword", "hebdomadaires"); len(out.Hits) != 1 || out.Hits[0].Title != "Télétravail" {
		t.Errorf("the new version of teletravail.md is not found: %+v", out.Hits)
	}
	var bases []map[string]any
	decodeOnly(t, h.run(t, "kb", "list", "--json").stdout, &bases)
	if len(bases) != 1 || bases[0]["documents"] != 3.0 || bases[0]["chunks"] != 3.0 {
		t.Errorf("after the update kb list says %v, want 3 documents and 3 passages", bases)
	}
}

func TestKBListAndRm(t *testing.T) {
	h := newKBHarness(t)

	res := h.run(t, "kb", "list")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "No knowledge base yet") {
		t.Errorf("empty list: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "kb", "list", "--json")
	if res.code != 0 || res.stdout != "[]\n" {
		t.Errorf("empty list --json: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}

	withBase(t, h, "docs")
	if res := h.run(t, "kb", "create", "vide", "--description", "rien encore"); res.code != 0 {
		t.Fatalf("kb create vide: exit %d, stderr %q", res.code, res.stderr)
	}

	res = h.run(t, "kb", "list")
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	if res.code != 0 || len(lines) != 3 ||
		!regexp.MustCompile(`^NAME +DOCUMENTS +PASSAGES +SIZE +INDEXES +UPDATED$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^docs +3 +3 +\d+ B +keyword +\d{4}-\d\d-\d\d \d\d:\d\d$`).MatchString(lines[1]) ||
		!regexp.MustCompile(`^vide +0 +0 +0 B +keyword +`).MatchString(lines[2]) {
		t.Errorf("kb list: exit %d, stdout:\n%s\nwant a header, then docs with 3 documents and 3 passages, then vide", res.code, res.stdout)
	}

	res = h.run(t, "kb", "list", "--json")
	var bases []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Documents   int    `json:"documents"`
		Chunks      int    `json:"chunks"`
		Bytes       int64  `json:"bytes"`
	}
	decodeOnly(t, res.stdout, &bases)
	if res.code != 0 || len(bases) != 2 || bases[0].Name != "docs" || bases[0].Documents != 3 || bases[0].Chunks != 3 ||
		bases[0].Bytes <= 0 || !strings.HasPrefix(bases[0].ID, "kb-") ||
		bases[1].Name != "vide" || bases[1].Description != "rien encore" || bases[1].Documents != 0 {
		t.Errorf("kb list --json: exit %d, %+v", res.code, bases)
	}

	// A name taken, an invalid name, a base that does not exist: the
	// user's mistakes.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kb", "create", "docs"}, "docs"},
		{[]string{"kb", "create", "bad name"}, `"bad name"`},
		{[]string{"kb", "create", "../escape"}, `"../escape"`},
		{[]string{"kb", "rm", "nope"}, "nope"},
		{[]string{"kb", "add", "nope", t.TempDir()}, "nope"},
		{[]string{"kb", "search", "nope", "congés"}, "nope"},
		{[]string{"kb", "search", "docs", "--mode", "fuzzy", "congés"}, "fuzzy"},
	} {
		res := h.run(t, tc.args...)
		if res.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", tc.args, res.code, res.stderr)
		}
		if !strings.HasPrefix(res.stderr, "moteur: ") || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: stderr %q, want a message naming %s", tc.args, res.stderr, tc.want)
		}
		if strings.Contains(res.stdout, "Created") {
			t.Errorf("%v: stdout %q", tc.args, res.stdout)
		}
	}

	res = h.run(t, "kb", "rm", "docs", "--yes")
	if res.code != 0 || res.stdout != "Removed knowledge base docs.\n" {
		t.Errorf("kb rm docs: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "kb", "list", "--json")
	decodeOnly(t, res.stdout, &bases)
	if len(bases) != 1 || bases[0].Name != "vide" {
		t.Errorf("after kb rm docs, kb list --json says %+v, want vide only", bases)
	}
	if res := h.run(t, "kb", "search", "docs", "congés"); res.code != 2 || !strings.Contains(res.stderr, "docs") {
		t.Errorf("search of the removed base: exit %d, stderr %q; want 2 naming it", res.code, res.stderr)
	}
	res = h.run(t, "kb", "rm", "docs", "--yes")
	if res.code != 2 || !strings.Contains(res.stderr, "knowledge base docs not found") {
		t.Errorf("second kb rm docs: exit %d, stderr %q; want 2 naming docs", res.code, res.stderr)
	}
	// The name is free again.
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Errorf("kb create after rm: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestKBEvalKeywordBeatsBaseline(t *testing.T) {
	h := newKBHarness(t)
	res := h.run(t, "kb", "eval", "../../kb/beir/testdata/moteur-fr-en", "--json")
	if res.code != 0 {
		t.Fatalf("kb eval: exit %d, stderr %q", res.code, res.stderr)
	}
	type scores struct {
		Name   *string  `json:"name"`
		NDCG   *float64 `json:"ndcg@10"`
		Recall *float64 `json:"recall@10"`
		MRR    *float64 `json:"mrr@10"`
	}
	var rep struct {
		Documents int      `json:"documents"`
		Queries   int      `json:"queries"`
		Modes     []scores `json:"modes"`
		Baseline  *scores  `json:"baseline"`
	}
	decodeOnly(t, res.stdout, &rep)
	if rep.Documents == 0 || rep.Queries == 0 {
		t.Errorf("%d documents, %d queries", rep.Documents, rep.Queries)
	}
	if rep.Baseline == nil || rep.Baseline.Name == nil || rep.Baseline.NDCG == nil || rep.Baseline.Recall == nil || rep.Baseline.MRR == nil {
		t.Fatalf("no complete baseline in %s", res.stdout)
	}
	i := slices.IndexFunc(rep.Modes, func(s scores) bool { return s.Name != nil && *s.Name == "keyword" })
	if i < 0 || rep.Modes[i].NDCG == nil {
		t.Fatalf("no keyword mode in %s", res.stdout)
	}
	kw := rep.Modes[i]
	for _, s := range []scores{kw, *rep.Baseline} {
		for _, v := range []*float64{s.NDCG, s.Recall, s.MRR} {
			if v == nil || *v < 0 || *v > 1 {
				t.Errorf("%s: score out of [0, 1] or missing: %s", *s.Name, res.stdout)
			}
		}
	}
	// The README's claim: Moteur's analysis beats SQLite's plain bm25().
	if *kw.NDCG <= *rep.Baseline.NDCG {
		t.Errorf("keyword nDCG@10 %.3f is not above the baseline's (%s) %.3f", *kw.NDCG, *rep.Baseline.Name, *rep.Baseline.NDCG)
	}

	// The text output is the same table.
	res = h.run(t, "kb", "eval", "../../kb/beir/testdata/moteur-fr-en")
	if res.code != 0 || !regexp.MustCompile(`(?m)^RANKING +nDCG@10 +RECALL@10 +MRR@10\nkeyword +0\.\d{3} +`).MatchString(res.stdout) {
		t.Errorf("kb eval text: exit %d, stdout:\n%s", res.code, res.stdout)
	}
	// Nothing is kept: no base appears.
	if res := h.run(t, "kb", "list", "--json"); res.stdout != "[]\n" {
		t.Errorf("kb eval left a base behind: %s", res.stdout)
	}
	if res := h.run(t, "kb", "eval", t.TempDir()); res.code == 0 {
		t.Errorf("kb eval of an empty folder: exit 0")
	}
}

// A run with --kb gives the agent the three knowledge tools over the base;
// what the model reads holds aliases only, and the answer lists its
// sources.
func TestRunKBGivesTheKnowledgeTools(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "search_knowledge", `{"query":"congés payés par an","mode":"keyword"}`),
		openaitest.Answer("Trente jours par an [c1]."))
	h := newKBHarness(t)
	withBase(t, h, "manuel-rh")
	h.env["MOTEUR_BASE_URL"] = srv.BaseURL()
	h.env["MOTEUR_MODEL"] = "m"

	res := h.run(t, "run", "--kb", "manuel-rh", "--new-session", "s-kb", "Combien de jours de congés par an ?")
	if res.code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	srv.CheckPairing(t)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	for _, name := range []string{"search_knowledge", "read_document", "list_documents"} {
		if !slices.Contains(reqs[0].Tools, name) {
			t.Errorf("tools %v lack %s", reqs[0].Tools, name)
		}
	}
	sys := reqs[0].Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, i18n.KnowledgePrompt(i18n.EN, "manuel-rh", true)) {
		t.Errorf("system prompt does not name the base manuel-rh:\n%s", sys.Content)
	}
	for i, r := range reqs {
		if m := storedID.FindString(string(r.Body)); m != "" {
			t.Errorf("request %d holds the stored id %s", i+1, m)
		}
	}
	var result string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" && m.ToolCallID == "call_1" {
			result = m.Content
		}
	}
	if !strings.Contains(result, `<passage id="c1"`) || !strings.Contains(result, "30 jours par an") ||
		!strings.Contains(result, "Congés payés") {
		t.Errorf("search_knowledge result sent to the model:\n%s\nwant the passage of conges.md as c1", result)
	}

	if !strings.Contains(res.stdout, "→ search_knowledge ") || !strings.Contains(res.stdout, "✓ search_knowledge (") {
		t.Errorf("stdout does not show the tool call:\n%s", res.stdout)
	}
	if !regexp.MustCompile(`Trente jours par an \[c1\]\.\n\nSources:\n  \[c1\] Congés payés — conges\.md › Congés payés\n$`).MatchString(res.stdout) {
		t.Errorf("stdout does not end with the answer and its sources:\n%s", res.stdout)
	}
	if storedID.MatchString(res.stdout) {
		t.Errorf("stdout shows a stored id:\n%s", res.stdout)
	}

	// The stored answer maps [c1] to the chunk.
	evs := h.load(t, "s-kb")
	checkSeqs(t, evs)
	last := slices.IndexFunc(evs, func(e event.Event) bool {
		p, ok := e.Payload.(event.AssistantMessagePayload)
		return ok && len(p.ToolCalls) == 0
	})
	if last < 0 {
		t.Fatalf("no answer stored: %v", types(evs))
	}
	am := evs[last].Payload.(event.AssistantMessagePayload)
	if len(am.Citations) != 1 || am.Citations[0].Alias != "c1" || !chunkID.MatchString(am.Citations[0].ID) ||
		am.Citations[0].Title != "Congés payés" {
		t.Errorf("stored citations %+v, want c1 → a chunk of Congés payés", am.Citations)
	}
}

func TestRunKBMissingBaseIsUsageError(t *testing.T) {
	srv := openaitest.NewServer(t) // any request fails the test
	h := newKBHarness(t)
	withBase(t, h, "docs")
	h.env["MOTEUR_BASE_URL"] = srv.BaseURL()
	h.env["MOTEUR_MODEL"] = "m"
	res := h.run(t, "run", "--kb", "missing", "--new-session", "s-missing", "hi")
	if res.code != 2 {
		t.Errorf("exit %d, want 2; stderr %q", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "missing") || strings.Count(res.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line naming the base", res.stderr)
	}
	if res.stdout != "" {
		t.Errorf("stdout %q", res.stdout)
	}
	if evs, err := h.store(t).Load(t.Context(), "s-missing"); err == nil && len(evs) > 0 {
		t.Errorf("a session was stored for a run that could not start: %v", types(evs))
	}
	// One missing among existing ones is still a mistake.
	if res := h.run(t, "run", "--kb", "docs,missing", "hi"); res.code != 2 || !strings.Contains(res.stderr, "missing") {
		t.Errorf("--kb docs,missing: exit %d, stderr %q", res.code, res.stderr)
	}
}
