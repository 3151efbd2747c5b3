package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/data"
)

// salesCSV is the table of the tests: by region, 5 (Est), 250 (Nord) and
// 100 (Sud).
const salesCSV = "region,produit,montant\nNord,pommes,100\nSud,poires,80\nNord,poires,150\nSud,pommes,20\nEst,pommes,5\n"

// tablesEnv makes the bases of files (base → file name → content) in e's
// data directory, each file ingested from a folder of its base, and
// returns the files' paths by name.
func tablesEnv(t *testing.T, e *testEnv, bases map[string]map[string]string) map[string]string {
	t.Helper()
	o := e.options("")
	o.NoModel = true
	st, err := LoadSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	store, err := st.OpenKnowledge(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	paths := map[string]string{}
	for base, files := range bases {
		dir := t.TempDir()
		for name, content := range files {
			paths[name] = filepath.Join(dir, name)
			writeFile(t, paths[name], content)
		}
		if _, err := store.Create(t.Context(), base, kb.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		rep, err := store.Ingest(t.Context(), base, []string{dir}, kb.IngestOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failed > 0 {
			t.Fatalf("ingest %s: %+v", base, rep)
		}
	}
	return paths
}

// lastToolResults are the tool results a request ends with: those of the
// round before it.
func lastToolResults(t *testing.T, r openaitest.Request) []string {
	t.Helper()
	var out []string
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == llm.RoleTool; i-- {
		out = append([]string{r.Messages[i].Content}, out...)
	}
	if len(out) == 0 {
		t.Fatalf("the request ends with no tool result: %+v", r.Messages)
	}
	return out
}

// lastToolResult is the one tool result a request ends with.
func lastToolResult(t *testing.T, r openaitest.Request) string {
	t.Helper()
	rs := lastToolResults(t, r)
	if len(rs) != 1 {
		t.Fatalf("%d tool results, want 1: %q", len(rs), rs)
	}
	return rs[0]
}

func submit(t *testing.T, s *Session, text string) {
	t.Helper()
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: text}); err != nil {
		t.Fatal(err)
	}
}

// TestDataToolsAnswerFromACSV: a session on a base holding a CSV offers
// data_schema and data_analysis beside the knowledge tools, its prompt
// lists the CSV, and a GROUP BY computes the right figures, the results
// citing the document's alias, which the second call uses.
func TestDataToolsAnswerFromACSV(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", data.SchemaName, `{"knowledge_id":"ventes.csv"}`),
		openaitest.Calls("c2", data.AnalysisName, `{"knowledge_id":"d1","sql":"SELECT region, SUM(montant) AS total FROM dataset GROUP BY region ORDER BY region"}`),
		openaitest.Answer("Le Nord fait 250 [d1]."))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	paths := tablesEnv(t, e, map[string]map[string]string{"ventes": {"ventes.csv": salesCSV, "notes.md": "# Notes\n\nRien.\n"}})
	o := e.options("s-data")
	o.KnowledgeBases = []string{"ventes"}
	s := e.open(t, o)
	submit(t, s, "total par région ?")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for _, name := range []string{data.SchemaName, data.AnalysisName, "search_knowledge"} {
		if !slices.Contains(reqs[0].Tools, name) {
			t.Errorf("tools offered %v, want %s among them", reqs[0].Tools, name)
		}
	}
	system := reqs[0].Messages[0].Content
	for _, want := range []string{"- ventes.csv (base ventes, CSV) : " + paths["ventes.csv"], "`dataset`", "data_schema", "[d2]"} {
		if !strings.Contains(system, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "notes.md") {
		t.Errorf("the prompt lists a document that is no table:\n%s", system)
	}
	schema := lastToolResult(t, reqs[1])
	for _, want := range []string{"[d1] ventes.csv", "5 rows", "region", "montant"} {
		if !strings.Contains(schema, want) {
			t.Errorf("data_schema's result lacks %q:\n%s", want, schema)
		}
	}
	sums := lastToolResult(t, reqs[2])
	for _, want := range []string{"| Est | 5 |", "| Nord | 250 |", "| Sud | 100 |", "3 rows"} {
		if !strings.Contains(sums, want) {
			t.Errorf("data_analysis's result lacks %q:\n%s", want, sums)
		}
	}
	srv.CheckPairing(t)
}

// TestDataToolsNotOfferedWithoutTables: a base of Markdown alone gets the
// knowledge tools and neither data tool, nor their section.
func TestDataToolsNotOfferedWithoutTables(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	knowledgeEnv(t, e)
	o := e.options("s-notables")
	o.KnowledgeBases = []string{"rh"}
	s := e.open(t, o)
	submit(t, s, "bonjour")
	req := srv.Requests()[0]
	if !slices.Contains(req.Tools, "search_knowledge") {
		t.Fatalf("tools %v: the base's tools are not offered", req.Tools)
	}
	if slices.Contains(req.Tools, data.SchemaName) || slices.Contains(req.Tools, data.AnalysisName) {
		t.Errorf("tools %v: data tools offered for a base without tables", req.Tools)
	}
	if system := req.Messages[0].Content; strings.Contains(system, "`dataset`") {
		t.Errorf("the prompt has the data tools' section:\n%s", system)
	}
}

// TestDataAnalystAgent: the built-in data analyst gets the two data tools
// and nothing else, its temperature on its requests, no knowledge section
// (it has no knowledge tool) and the tables listed; its call works.
func TestDataAnalystAgent(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", data.SchemaName, `{"knowledge_id":"ventes.csv"}`),
		openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	tablesEnv(t, e, map[string]map[string]string{"ventes": {"ventes.csv": salesCSV}})
	o := e.options("s-analyst")
	a, err := ResolveAgent(t.Context(), o, "builtin-data-analyst")
	if err != nil {
		t.Fatal(err)
	}
	o.Agent = &a
	s := e.open(t, o)
	for _, w := range s.Warnings {
		if strings.Contains(w, "data_") {
			t.Errorf("warning %q about a data tool", w)
		}
	}
	submit(t, s, "combien de lignes ?")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	got := slices.Sorted(slices.Values(reqs[0].Tools))
	if want := []string{data.AnalysisName, data.SchemaName}; !slices.Equal(got, want) {
		t.Errorf("tools %v, want exactly %v", got, want)
	}
	for i, r := range reqs {
		if _, temp, _ := body(t, r.Body); temp == nil || *temp != 0.3 {
			t.Errorf("request %d: temperature %v, want 0.3", i+1, temp)
		}
	}
	system := reqs[0].Messages[0].Content
	if !strings.Contains(system, "ventes.csv (base ventes, CSV)") {
		t.Errorf("the prompt does not list the table:\n%s", system)
	}
	if strings.Contains(system, "search_knowledge") {
		t.Errorf("the prompt offers search_knowledge, which the agent lacks:\n%s", system)
	}
	if r := lastToolResult(t, reqs[1]); !strings.Contains(r, "[d1] ventes.csv") || !strings.Contains(r, "5 rows") {
		t.Errorf("data_schema's result:\n%s", r)
	}
}

// TestAllowedToolsOfMoteur: the data tools without a table and the web
// tools, which the agent's switches turn on, are tools of Moteur: only
// the unknown name is warned about.
func TestAllowedToolsOfMoteur(t *testing.T) {
	e := newTestEnv(t)
	o := e.options("s-allowed")
	a := smartAgent("ag-allowed")
	a.Config.AllowedTools = []string{"read_file", data.SchemaName, data.AnalysisName, "web_search", "web_fetch", "no_such_tool"}
	o.Agent = a
	s := e.open(t, o)
	var about []string
	for _, w := range s.Warnings {
		if strings.Contains(w, "n'est pas un outil de Moteur") {
			about = append(about, w)
		}
	}
	if len(about) != 1 || !strings.Contains(about[0], "no_such_tool") {
		t.Errorf("warnings %q, want one, about no_such_tool", s.Warnings)
	}
}

// TestDataToolsRefuseATableChangedOnDisk: a CSV rewritten or removed
// since its ingestion is an error saying so and how to add it again, never
// the new figures.
func TestDataToolsRefuseATableChangedOnDisk(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(path string) error
		want   string
	}{
		// The same size, one figure changed: only the SHA-256 tells.
		"changed": {func(p string) error {
			return os.WriteFile(p, []byte(strings.Replace(salesCSV, "Est,pommes,5", "Est,pommes,6", 1)), 0o600)
		},
			"changed since it was added to the base ventes: run `moteur kb add ventes %s` again"},
		"removed": {os.Remove, "%s was moved or deleted since it was added to the base ventes"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := openaitest.NewServer(t,
				openaitest.Calls("c1", data.AnalysisName, `{"knowledge_id":"ventes.csv","sql":"SELECT * FROM dataset"}`),
				openaitest.Answer("fini"))
			e := newTestEnv(t)
			e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
			paths := tablesEnv(t, e, map[string]map[string]string{"ventes": {"ventes.csv": salesCSV}})
			if err := tc.change(paths["ventes.csv"]); err != nil {
				t.Fatal(err)
			}
			o := e.options("s-changed")
			o.KnowledgeBases = []string{"ventes"}
			s := e.open(t, o)
			submit(t, s, "les ventes ?")
			r := lastToolResult(t, srv.Requests()[1])
			if want := strings.ReplaceAll(tc.want, "%s", paths["ventes.csv"]); !strings.Contains(r, want) {
				t.Errorf("tool result:\n%s\nwant %q in it", r, want)
			}
			if strings.Contains(r, "rows") || strings.Contains(r, "Nord") {
				t.Errorf("the tool answered with figures:\n%s", r)
			}
		})
	}
}

// TestDataToolsRefuseATableOutOfScope: a session continued on another
// base refuses the table its alias stood for, and the path of a table of
// a base it does not use, naming the tables it has.
func TestDataToolsRefuseATableOutOfScope(t *testing.T) {
	e := newTestEnv(t)
	paths := tablesEnv(t, e, map[string]map[string]string{
		"ventes": {"ventes.csv": salesCSV},
		"compta": {"budget.csv": "poste,montant\nloyer,1200\n"}})
	// The second session's round names d1, then the path of ventes.csv.
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", data.SchemaName, `{"knowledge_id":"ventes.csv"}`),
		openaitest.Answer("vu"),
		openaitest.Calls("c2", data.SchemaName, `{"knowledge_id":"d1"}`, "c3", data.SchemaName, `{"knowledge_id":`+quoteJSON(t, paths["ventes.csv"])+`}`),
		openaitest.Answer("fini"))
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()

	first := e.options("s-scope")
	first.KnowledgeBases = []string{"ventes"}
	s, err := Open(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	submit(t, s, "regarde les ventes")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if r := lastToolResult(t, srv.Requests()[1]); !strings.HasPrefix(r, "[d1] ventes.csv") {
		t.Fatalf("the first session's schema:\n%s", r)
	}

	second := e.options("s-scope")
	second.KnowledgeBases = []string{"compta"}
	s = e.open(t, second)
	if !s.Resumed() {
		t.Fatal("the second session does not continue the first")
	}
	submit(t, s, "et maintenant ?")
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if system := reqs[2].Messages[0].Content; !strings.Contains(system, "budget.csv") || strings.Contains(system, "ventes.csv (base") {
		t.Errorf("the second session's prompt lists the wrong tables:\n%s", system)
	}
	rs := lastToolResults(t, reqs[3])
	if len(rs) != 2 {
		t.Fatalf("%d tool results, want 2: %q", len(rs), rs)
	}
	if !strings.Contains(rs[0], "d1 (ventes.csv) is in the knowledge base ventes, which this session does not use") {
		t.Errorf("data_schema d1 out of scope:\n%s", rs[0])
	}
	if !strings.Contains(rs[1], "no CSV, TSV or Excel document named") || !strings.Contains(rs[1], paths["budget.csv"]+" (base compta)") {
		t.Errorf("data_schema by the path of a table out of scope:\n%s", rs[1])
	}
	for _, r := range rs {
		if strings.Contains(r, "5 rows") {
			t.Errorf("a table out of scope was read:\n%s", r)
		}
	}
}

func quoteJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// closeWatch stands for a closer of the session's tools: it closes it,
// then, while the knowledge bases are still open, calls data_schema
// through the closed set.
type closeWatch struct {
	inner   io.Closer
	closed  int
	after   tools.Result
	execErr error
}

func (w *closeWatch) Close() error {
	w.closed++
	err := w.inner.Close()
	if set, ok := w.inner.(*data.Set); ok {
		ctx := cite.WithTable(context.Background(), cite.NewTable())
		w.after, w.execErr = set.Tools()[0].Execute(ctx, json.RawMessage(`{"knowledge_id":"ventes.csv"}`))
	}
	return err
}

// TestDataToolsClosedWithTheSession: Session.Close closes the data tools
// that loaded a table during the turn: a call afterwards is refused as
// closed, though the table still resolves.
func TestDataToolsClosedWithTheSession(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", data.SchemaName, `{"knowledge_id":"ventes.csv"}`),
		openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	tablesEnv(t, e, map[string]map[string]string{"ventes": {"ventes.csv": salesCSV}})
	o := e.options("s-close")
	o.KnowledgeBases = []string{"ventes"}
	s, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	var watch *closeWatch
	for i, c := range s.tools.closers {
		if _, ok := c.(*data.Set); ok {
			watch = &closeWatch{inner: c}
			s.tools.closers[i] = watch
		}
	}
	if watch == nil {
		_ = s.Close()
		t.Fatalf("no data tools among the closers of the session's tools: %v", s.tools.closers)
	}
	submit(t, s, "combien de lignes ?")
	if r := lastToolResult(t, srv.Requests()[1]); !strings.Contains(r, "5 rows") {
		_ = s.Close()
		t.Fatalf("the table was not loaded during the turn:\n%s", r)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if watch.closed != 1 {
		t.Fatalf("the data tools were closed %d times, want 1", watch.closed)
	}
	if watch.execErr != nil || !watch.after.IsError || !strings.Contains(watch.after.Content, data.ErrClosed.Error()) {
		t.Errorf("data_schema after Close: %+v, %v; want the tools closed", watch.after, watch.execErr)
	}
}

// TestDataToolsReadACompressedCSV: a CSV the base holds gzip-compressed
// is read by its name without .gz, decompressed.
func TestDataToolsReadACompressedCSV(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", data.AnalysisName, `{"knowledge_id":"ventes.csv","sql":"SELECT SUM(montant) AS total FROM dataset"}`),
		openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(salesCSV)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	tablesEnv(t, e, map[string]map[string]string{"ventes": {"ventes.csv.gz": gz.String()}})
	o := e.options("s-gz")
	o.KnowledgeBases = []string{"ventes"}
	s := e.open(t, o)
	submit(t, s, "total ?")
	reqs := srv.Requests()
	if system := reqs[0].Messages[0].Content; !strings.Contains(system, "- ventes.csv (base ventes, CSV)") {
		t.Errorf("the prompt does not list the compressed table by its name:\n%s", system)
	}
	if r := lastToolResult(t, reqs[1]); !strings.Contains(r, "| 355 |") {
		t.Errorf("data_analysis on the compressed CSV:\n%s", r)
	}
}
