package rag_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/rag"
)

// fakeWeb is a rag.WebSearcher that records its calls and answers results
// or err.
type fakeWeb struct {
	mu        sync.Mutex
	queries   []string
	sensitive []bool
	results   []rag.WebResult
	err       error
	// before, when set, runs first with the call's context (to block it).
	before func(ctx context.Context) error
}

func (f *fakeWeb) SearchWeb(ctx context.Context, query string) ([]rag.WebResult, error) {
	f.mu.Lock()
	f.queries = append(f.queries, query)
	f.sensitive = append(f.sensitive, policy.SensitiveFrom(ctx))
	f.mu.Unlock()
	if f.before != nil {
		if err := f.before(ctx); err != nil {
			return nil, err
		}
	}
	return f.results, f.err
}

func (f *fakeWeb) calls() ([]string, []bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queries...), append([]bool(nil), f.sensitive...)
}

var loireWeb = []rag.WebResult{
	{Title: "Congés payés en France", URL: "https://service-public.test/conges", Snippet: "Le salarié a droit à cinq semaines de congés payés par an.", Published: "2026-11-02"},
	{Title: "Marées de la Loire", URL: "https://news.test/marees", Snippet: "L'estuaire de la Loire monte deux fois par jour."},
}

func retrievedOf(t *testing.T, rec *recorded) event.KnowledgeRetrievedPayload {
	t.Helper()
	return rec.payload(t, func(p any) bool { _, ok := p.(event.KnowledgeRetrievedPayload); return ok }).(event.KnowledgeRetrievedPayload)
}

func answerOf(t *testing.T, rec *recorded) event.AssistantMessagePayload {
	t.Helper()
	return rec.payload(t, func(p any) bool { _, ok := p.(event.AssistantMessagePayload); return ok }).(event.AssistantMessagePayload)
}

// aliasesOf are the aliases of refs, with their kinds: "c1:chunk w1:web".
func aliasesOf(refs []cite.Ref) string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Alias+":"+r.Kind)
	}
	return strings.Join(out, " ")
}

// TestWebResultsCitedBesidePassages: the web results follow the passages
// in what the model reads, marked as web results; the prompt says how to
// cite them; an answer citing c1 and w1 maps both back, in the answer and
// its event; the retrieval event records the web references.
func TestWebResultsCitedBesidePassages(t *testing.T) {
	for _, lang := range []i18n.Lang{i18n.FR, i18n.EN} {
		t.Run(string(lang), func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Answer("Trente jours par an [c1] ; cinq semaines selon le web [w1]."))
			w := &fakeWeb{results: loireWeb}
			p := pipeline(t, rag.Config{Router: router(t, srv, false), Outbound: outbound(t), Web: w, Lang: lang})
			rec := &recorded{}
			question := "Combien de jours de congés payés par an ?"
			a, err := p.Ask(context.Background(), question, nil, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			if q, _ := w.calls(); len(q) != 1 || q[0] != question {
				t.Fatalf("web searched %q, want the question once", q)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want the generation", len(reqs))
			}
			user := reqs[0].Messages[len(reqs[0].Messages)-1].Content
			c1, w1, w2 := strings.Index(user, `<source id="c1"`), strings.Index(user, `<source id="w1"`), strings.Index(user, `<source id="w2"`)
			if c1 < 0 || w1 < c1 || w2 < w1 || strings.Count(user, "<sources>") != 1 {
				t.Fatalf("the model's sources are not the passages then the web results, in one block:\n%s", user)
			}
			mark := i18n.Tr(lang, "web result")
			if !strings.Contains(user, `headings="`+mark+` · https://service-public.test/conges · 2026-11-02"`) ||
				!strings.Contains(user, "cinq semaines de congés payés") {
				t.Fatalf("the web result is not marked as one (%q) with its address and snippet:\n%s", mark, user)
			}
			system := reqs[0].Messages[0].Content
			if !strings.Contains(system, "[w1]") || !strings.Contains(system, "[c2]") {
				t.Fatalf("the system prompt does not say how to cite web results beside passages:\n%s", system)
			}
			if lang == i18n.FR && strings.Contains(system, "web search results") {
				t.Fatalf("French prompt holds English:\n%s", system)
			}
			if got := aliasesOf(a.Citations); got != "c1:chunk w1:web" {
				t.Fatalf("citations %s, want c1 and w1", got)
			}
			if a.Citations[1].ID != loireWeb[0].URL || a.Citations[1].Path != loireWeb[0].URL || a.Citations[1].Title != loireWeb[0].Title {
				t.Fatalf("w1 maps to %+v, want %s", a.Citations[1], loireWeb[0].URL)
			}
			if got := aliasesOf(answerOf(t, rec).Citations); got != "c1:chunk w1:web" {
				t.Fatalf("AssistantMessage citations %s, want c1 and w1", got)
			}
			kr := retrievedOf(t, rec)
			refs := aliasesOf(kr.References)
			if !strings.HasPrefix(refs, "c1:chunk") || !strings.HasSuffix(refs, "w1:web w2:web") {
				t.Fatalf("retrieval references %s, want the passages then w1 and w2", refs)
			}
			if got := aliasesOf(a.Sources); got != refs {
				t.Fatalf("sources %s, want those of the retrieval %s", got, refs)
			}
		})
	}
}

// emptyStore finds nothing.
type emptyStore struct{}

func (emptyStore) Search(context.Context, kb.Query) (kb.Result, error) {
	return kb.Result{Hint: "no passage"}, nil
}

// TestWebOnlyAnswers: with no passage found, the web results still
// answer; without a model the extractive provider quotes the snippet,
// cited wN.
func TestWebOnlyAnswers(t *testing.T) {
	w := &fakeWeb{results: loireWeb}
	p, err := rag.New(rag.Config{Store: emptyStore{}, Web: w, Lang: i18n.FR})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "Quand monte l'estuaire de la Loire ?", nil, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Extractive || !strings.Contains(a.Text, "> L'estuaire de la Loire monte deux fois par jour. [w2] — Marées de la Loire") {
		t.Fatalf("answer does not quote the web snippet cited w2:\n%s", a.Text)
	}
	if strings.Contains(a.Text, i18n.T(i18n.FR, i18n.NoPassage)) {
		t.Fatalf("answer says nothing was found:\n%s", a.Text)
	}
	if len(a.Citations) != 1 || a.Citations[0].Alias != "w2" || a.Citations[0].ID != loireWeb[1].URL {
		t.Fatalf("citations %+v, want w2 → %s", a.Citations, loireWeb[1].URL)
	}
	if got := aliasesOf(retrievedOf(t, rec).References); got != "w1:web w2:web" {
		t.Fatalf("retrieval references %s", got)
	}
}

// TestWebFailureLeavesThePassages: a web search that fails, or that the
// gate refuses, does not fail the answer: the passages answer alone and a
// warning says why.
func TestWebFailureLeavesThePassages(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"failed", errors.New("searxng at 127.0.0.1 is unreachable: connection refused"),
			[]string{"web search failed", "connection refused", "knowledge bases alone"}},
		{"refused", fmt.Errorf("web search not sent: %w", &policy.Refusal{Rule: "sensitive session", Reason: "not local"}),
			[]string{"web search refused", "sensitive session", "nothing was sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &fakeWeb{err: tc.err}
			p := pipeline(t, rag.Config{Web: w, Lang: i18n.EN})
			rec := &recorded{}
			a, err := p.Ask(context.Background(), "Combien de jours de congés payés par an ?", nil, rec.emit)
			if err != nil {
				t.Fatalf("the answer failed with the web search: %v", err)
			}
			if q, _ := w.calls(); len(q) != 1 {
				t.Fatalf("%d web searches, want 1", len(q))
			}
			want := []event.Type{event.UserMessage, event.KnowledgeRetrieved, event.Warning, event.AssistantMessage, event.TurnCompleted}
			if fmt.Sprint(rec.types) != fmt.Sprint(want) {
				t.Fatalf("events %v, want %v", rec.types, want)
			}
			warn := rec.payload(t, func(p any) bool { _, ok := p.(event.WarningPayload); return ok }).(event.WarningPayload)
			for _, s := range tc.want {
				if warn.Kind != "web" || !strings.Contains(warn.Message, s) {
					t.Fatalf("warning %+v, want kind web saying %q", warn, s)
				}
			}
			if !strings.Contains(a.Text, "30 jours par an") || len(a.Citations) == 0 || a.Citations[0].Kind != cite.Chunk {
				t.Fatalf("the passages did not answer:\n%s\n%+v", a.Text, a.Citations)
			}
			if refs := aliasesOf(retrievedOf(t, rec).References); strings.Contains(refs, "web") {
				t.Fatalf("retrieval references %s hold web results", refs)
			}
		})
	}
}

// TestWebSearchOfASensitiveSession: the sensitive option marks the web
// search's context, so the gate sends the query only to a local provider;
// a session that is not sensitive searches unmarked.
func TestWebSearchOfASensitiveSession(t *testing.T) {
	for _, sensitive := range []bool{true, false} {
		w := &fakeWeb{results: loireWeb}
		p := pipeline(t, rag.Config{Web: w})
		if _, err := p.Ask(context.Background(), "jours de congés payés", nil, nil, rag.WithSensitive(sensitive)); err != nil {
			t.Fatal(err)
		}
		if _, got := w.calls(); len(got) != 1 || got[0] != sensitive {
			t.Errorf("WithSensitive(%t): the searcher's context says sensitive %v", sensitive, got)
		}
	}
}

// gatedStore is a store whose search waits for the web search to start.
type gatedStore struct {
	rag.Searcher
	webStarted <-chan struct{}
	searched   chan<- struct{}
}

func (g gatedStore) Search(ctx context.Context, q kb.Query) (kb.Result, error) {
	close(g.searched)
	select {
	case <-g.webStarted:
	case <-time.After(10 * time.Second):
		return kb.Result{}, errors.New("the web search did not start while the knowledge bases were searched")
	}
	return g.Searcher.Search(ctx, q)
}

// TestWebSearchRunsBesideRetrieval: the web search and the retrieval run
// at the same time: each waits for the other to have started.
func TestWebSearchRunsBesideRetrieval(t *testing.T) {
	webStarted, searched := make(chan struct{}), make(chan struct{})
	w := &fakeWeb{results: loireWeb, before: func(context.Context) error {
		close(webStarted)
		select {
		case <-searched:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the knowledge bases were not searched while the web was")
		}
	}}
	p, err := rag.New(rag.Config{Store: gatedStore{Searcher: freshStore(t), webStarted: webStarted, searched: searched}, Web: w})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "Combien de jours de congés payés par an ?", nil, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range rec.types {
		if typ == event.Warning {
			t.Fatalf("events %v: the web search failed", rec.types)
		}
	}
	if refs := aliasesOf(a.Sources); !strings.Contains(refs, "c1:chunk") || !strings.Contains(refs, "w1:web") {
		t.Fatalf("sources %s, want passages and web results", refs)
	}
}

// TestFailedSearchWithWebRecordsTheQuestion: with the web on, a first
// question is recorded before its query leaves for the web; a retrieval
// that fails then ends the turn with the error, and the web search still
// running is cancelled and waited for.
func TestFailedSearchWithWebRecordsTheQuestion(t *testing.T) {
	var cancelled bool
	w := &fakeWeb{before: func(ctx context.Context) error {
		<-ctx.Done()
		cancelled = true
		return ctx.Err()
	}}
	st := &failingStore{}
	p, err := rag.New(rag.Config{Store: st, Web: w})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{}
	if _, err := p.Ask(context.Background(), "jours de congés payés", nil, rec.emit); err == nil || !strings.Contains(err.Error(), "no searchable index") {
		t.Fatalf("error %v, want the retrieval's", err)
	}
	if q, _ := w.calls(); st.calls != 1 || len(q) != 1 || !cancelled {
		t.Fatalf("%d retrievals, %d web searches, web cancelled %t: want 1, 1, true", st.calls, len(q), cancelled)
	}
	want := []event.Type{event.UserMessage, event.Error, event.TurnCompleted}
	if fmt.Sprint(rec.types) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", rec.types, want)
	}
}

// TestNoWebResultStreamUnchanged: without a web searcher — and with one
// that finds nothing — a quick answer's event stream is the golden one,
// byte for byte.
func TestNoWebResultStreamUnchanged(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "golden", "extractive.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*fakeWeb{"no searcher": nil, "nothing found": {}} {
		t.Run(name, func(t *testing.T) {
			dir, s := goldenStore(t)
			cfg := rag.Config{Store: s}
			if w != nil {
				cfg.Web = w
			}
			p, err := rag.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := goldenStream(t, p, dir)
			if got.String() != string(want) {
				t.Fatalf("stream differs from the golden one:\n%s", got.String())
			}
			if w != nil {
				if q, _ := w.calls(); len(q) != 1 {
					t.Fatalf("%d web searches, want 1: the searcher was not asked", len(q))
				}
			}
		})
	}
}

// goldenStore is the store of TestGoldenQuickAnswer: the documents in a
// directory (returned), ingested by one worker with fixed ids and time.
func goldenStore(t *testing.T) (string, *kb.Store) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	s, err := kb.Open(context.Background(), kb.Config{Path: filepath.Join(t.TempDir(), "moteur.db"),
		Now:   func() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) },
		NewID: func() string { n++; return fmt.Sprintf("%016x", n) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Create(context.Background(), "docs", kb.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(context.Background(), "docs", []string{dir}, kb.IngestOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	return dir, s
}
