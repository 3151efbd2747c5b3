package rag_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/routing"
)

var docs = map[string]string{
	"conges.md":      "# Congés payés\n\nChaque salarié acquiert 2,5 jours ouvrables de congés payés par mois de travail effectif, soit 30 jours par an.\n\n## Report\n\nLes congés non pris au 31 mai peuvent être reportés avec l'accord du responsable.\n",
	"teletravail.md": "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période d'essai.\n",
	"projet.md":      "# Projet Alpha\n\nDIFFUSION RESTREINTE\n\nLe projet Alpha prévoit un mois de tests de charge avant la mise en production.\n",
}

// freshStore is a new database with one base of the documents: what a
// fresh machine has after moteur kb add, nothing else configured.
func freshStore(t *testing.T) *kb.Store { return storeWith(t, docs) }

// storeWith is a new database with one base, "docs", holding these files.
func storeWith(t *testing.T, files map[string]string) *kb.Store {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := kb.Open(context.Background(), kb.Config{Path: filepath.Join(t.TempDir(), "moteur.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Create(context.Background(), "docs", kb.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(context.Background(), "docs", []string{dir}, kb.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// pipeline is a quick-answer pipeline over a fresh store.
func pipeline(t *testing.T, cfg rag.Config) *rag.Pipeline {
	t.Helper()
	cfg.Store = freshStore(t)
	p, err := rag.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// outbound is the default pre-send check: built-in markings, no host list.
func outbound(t *testing.T) *policy.Outbound {
	t.Helper()
	out, err := policy.NewOutbound(policy.OutboundConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type recorded struct {
	types  []event.Type
	events []any
}

func (r *recorded) emit(t event.Type, p any, ephemeral bool) error {
	if !ephemeral {
		r.types = append(r.types, t)
	}
	r.events = append(r.events, p)
	return nil
}

func (r *recorded) payload(t *testing.T, want func(any) bool) any {
	t.Helper()
	for _, p := range r.events {
		if want(p) {
			return p
		}
	}
	t.Fatalf("no such event in %v", r.types)
	return nil
}

func TestExtractiveAnswerOnAFreshDatabase(t *testing.T) {
	p := pipeline(t, rag.Config{Lang: i18n.FR})
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "Combien de jours de congés payés par an ?", nil, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(a.Text, "\n")
	if !strings.Contains(first, "sans modèle") || !a.Extractive {
		t.Fatalf("first line %q does not say no model was used", first)
	}
	if !strings.Contains(a.Text, "30 jours par an") || !regexp.MustCompile(`\[c\d+\]`).MatchString(a.Text) {
		t.Fatalf("answer lacks the passage or its citation:\n%s", a.Text)
	}
	// The passage is quoted without its heading glued to its first
	// sentence ("Congés payés Chaque salarié…").
	if strings.Contains(a.Text, "payés Chaque") {
		t.Fatalf("heading quoted as part of the passage:\n%s", a.Text)
	}
	if len(a.Citations) == 0 || a.Citations[0].Title != "Congés payés" || !strings.HasPrefix(a.Citations[0].ID, "d-") {
		t.Fatalf("citations %+v", a.Citations)
	}
	want := []event.Type{event.UserMessage, event.KnowledgeRetrieved, event.AssistantMessage, event.TurnCompleted}
	if fmt.Sprint(rec.types) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", rec.types, want)
	}
	kr := rec.payload(t, func(p any) bool { _, ok := p.(event.KnowledgeRetrievedPayload); return ok }).(event.KnowledgeRetrievedPayload)
	if len(kr.References) == 0 || kr.References[0].Alias != "c1" || kr.References[0].Score <= 0 {
		t.Fatalf("retrieval references %+v", kr.References)
	}
	am := rec.payload(t, func(p any) bool { _, ok := p.(event.AssistantMessagePayload); return ok }).(event.AssistantMessagePayload)
	if len(am.Citations) == 0 || am.Citations[0].ID != a.Citations[0].ID || am.Provider != "extractive" {
		t.Fatalf("answer event %+v", am)
	}
}

func TestNothingFoundSaysSoWithoutAModel(t *testing.T) {
	srv := openaitest.NewServer(t) // any request fails the test
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Lang: i18n.EN})
	a, err := p.Ask(context.Background(), "zeppelin", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.Text, "No relevant passage") || !strings.Contains(a.Text, "keyword") {
		t.Fatalf("answer %q", a.Text)
	}
}

func router(t *testing.T, srv *openaitest.Server, local bool) *routing.Router {
	t.Helper()
	c, err := openai.New(openai.Config{Name: "remote", BaseURL: srv.BaseURL(), Model: "m", Local: local})
	if err != nil {
		t.Fatal(err)
	}
	r, err := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: c, Endpoint: c.Endpoint(), Local: local}}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var storedID = regexp.MustCompile(`\b(d|kb)-[0-9a-f]{16}`)

func TestModelAnswerCitesAliases(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Stream(
		openaitest.Chunk(`{"role":"assistant"}`, ""), openaitest.Text("Trente jours par an "),
		openaitest.Text("[c1]."), openaitest.Chunk(`{}`, "stop"), openaitest.Usage(120, 8), openaitest.Done))
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Outbound: outbound(t)})
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "Combien de jours de congés payés par an ?", nil, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want one generation", len(reqs))
	}
	body := string(reqs[0].Body)
	if m := storedID.FindString(body); m != "" {
		t.Fatalf("stored id %s sent to the model", m)
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	if !strings.Contains(last, `<source id="c1"`) || !strings.Contains(last, "Question: Combien de jours") {
		t.Fatalf("the context template is not what was sent:\n%s", last)
	}
	if a.Extractive || a.Text != "Trente jours par an [c1]." || a.Usage.PromptTokens != 120 {
		t.Fatalf("answer %+v", a)
	}
	if len(a.Citations) != 1 || a.Citations[0].Title != "Congés payés" {
		t.Fatalf("citations %+v", a.Citations)
	}
	deltas := 0
	for _, e := range rec.events {
		if _, ok := e.(event.DeltaPayload); ok {
			deltas++
		}
	}
	if deltas < 2 {
		t.Fatalf("%d deltas relayed, want the stream's", deltas)
	}
}

func TestRewriteFromHistory(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Answer("Combien de jours de télétravail par semaine ?"),
		openaitest.Answer("Deux jours [c1]."))
	p := pipeline(t, rag.Config{Router: router(t, srv, false)})
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "Parle-moi du télétravail."},
		{Role: llm.RoleAssistant, Content: "Le télétravail est encadré [c1]."},
	}
	a, err := p.Ask(context.Background(), "Combien de jours par semaine ?", history, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Query != "Combien de jours de télétravail par semaine ?" {
		t.Fatalf("searched %q, want the rewrite", a.Query)
	}
	if len(a.Sources) == 0 || a.Sources[0].Title != "Télétravail" {
		t.Fatalf("sources %+v", a.Sources)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Messages[0].Content, "Rewrite") && !strings.Contains(reqs[0].Messages[0].Content, "Réécris") {
		t.Fatalf("the first request is not the rewrite: %+v", reqs)
	}
}

// Classified passages never go to a remote model: the answer is quoted
// from them instead, and the user is told why.
func TestClassifiedPassagesStayLocal(t *testing.T) {
	srv := openaitest.NewServer(t) // any request fails the test
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Outbound: outbound(t), Lang: i18n.EN})
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "Combien de temps de tests pour le projet Alpha ?", nil, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Extractive || !strings.Contains(a.Text, "un mois de tests") {
		t.Fatalf("answer %+v", a)
	}
	sc := rec.payload(t, func(p any) bool { _, ok := p.(event.SessionClassifiedPayload); return ok }).(event.SessionClassifiedPayload)
	if sc.Marking != "DIFFUSION RESTREINTE" || !strings.Contains(sc.Source, "Projet Alpha") {
		t.Fatalf("classification %+v", sc)
	}
	w := rec.payload(t, func(p any) bool { _, ok := p.(event.WarningPayload); return ok }).(event.WarningPayload)
	if w.Kind != "outbound" || !strings.Contains(w.Message, "nothing was sent") {
		t.Fatalf("warning %+v", w)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the remote model", n)
	}
}

// A local model may read classified passages.
func TestClassifiedPassagesGoToALocalModel(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
	p := pipeline(t, rag.Config{Router: router(t, srv, true), Outbound: outbound(t)})
	a, err := p.Ask(context.Background(), "Combien de temps de tests pour le projet Alpha ?", nil, nil)
	if err != nil || a.Extractive || a.Text != "Trente jours [c1]." {
		t.Fatalf("answer %+v, %v", a, err)
	}
}

func TestTransientFailureTriesTheNextModel(t *testing.T) {
	bad := openaitest.NewServer(t, openaitest.Status(503, "server_error", "overloaded"))
	good := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
	mk := func(name string, srv *openaitest.Server) routing.Candidate {
		c, err := openai.New(openai.Config{Name: name, BaseURL: srv.BaseURL(), Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return routing.Candidate{Provider: c, Endpoint: c.Endpoint()}
	}
	r, err := routing.New(routing.Config{Candidates: []routing.Candidate{mk("first", bad), mk("second", good)}})
	if err != nil {
		t.Fatal(err)
	}
	// No retry: the first model's failure goes straight to the next.
	p := pipeline(t, rag.Config{Router: r, RetryDelays: []time.Duration{}})
	a, err := p.Ask(context.Background(), "jours de congés payés", nil, nil)
	if err != nil || a.Provider != "second" {
		t.Fatalf("answer %+v, %v", a, err)
	}
}

// A model that refuses (a bad key) is not retried: the passages are
// quoted instead, with a warning that gives the server's reason.
func TestPermanentFailureFallsBackToQuotes(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Status(401, "invalid_api_key", "bad key"))
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Lang: i18n.EN})
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "jours de congés payés", nil, rec.emit)
	if err != nil || !a.Extractive || !strings.Contains(a.Text, "[c1]") {
		t.Fatalf("answer %+v, %v", a, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1: a refusal is not retried", n)
	}
	w := rec.payload(t, func(p any) bool { _, ok := p.(event.WarningPayload); return ok }).(event.WarningPayload)
	if w.Kind != "provider" || !strings.Contains(w.Message, "bad key") || !strings.Contains(w.Message, "quoting the passages") {
		t.Fatalf("warning %+v", w)
	}
	if n := len(rec.types); rec.types[n-1] != event.TurnCompleted || slices.Contains(rec.types, event.Error) {
		t.Fatalf("events %v: want a completed turn and no error", rec.types)
	}
}

// When an event cannot be recorded (the audit log's disk is full), the
// pipeline stops there: nothing is sent to the model.
func TestRecordFailureStopsBeforeTheModel(t *testing.T) {
	srv := openaitest.NewServer(t) // any request fails the test
	p := pipeline(t, rag.Config{Router: router(t, srv, false)})
	var seen []event.Type
	emit := func(typ event.Type, _ any, ephemeral bool) error {
		seen = append(seen, typ)
		if typ == event.KnowledgeRetrieved {
			return errors.New("disk full")
		}
		return nil
	}
	_, err := p.Ask(context.Background(), "jours de congés payés", nil, emit)
	if !errors.Is(err, rag.ErrRecord) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if fmt.Sprint(seen) != fmt.Sprint([]event.Type{event.UserMessage, event.KnowledgeRetrieved}) {
		t.Fatalf("events after the failure: %v", seen)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent after the failure", n)
	}
}

// In one session an alias keeps its meaning: the passages of a second
// question continue the numbering of the session's table.
func TestAliasesContinueInASession(t *testing.T) {
	p := pipeline(t, rag.Config{})
	tab := cite.NewTable()
	first, err := p.Ask(context.Background(), "jours de congés payés par an", nil, nil, rag.WithAliases(tab))
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Ask(context.Background(), "télétravail deux jours par semaine", nil, nil, rag.WithAliases(tab))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, s := range append(first.Sources, second.Sources...) {
		if id, ok := seen[s.Alias]; ok && id != s.ID {
			t.Fatalf("alias %s names two passages: %s and %s", s.Alias, id, s.ID)
		}
		seen[s.Alias] = s.ID
	}
	if second.Sources[0].Title != "Télétravail" || second.Sources[0].Alias == "c1" {
		t.Fatalf("second question's first source %+v", second.Sources[0])
	}
}

// A session already sensitive sends nothing to a remote model, whatever
// this question's passages are.
func TestSensitiveSessionStaysLocal(t *testing.T) {
	srv := openaitest.NewServer(t) // any request fails the test
	p := pipeline(t, rag.Config{Router: router(t, srv, false)})
	a, err := p.Ask(context.Background(), "jours de congés payés", nil, nil, rag.WithSensitive(true))
	if err != nil || !a.Extractive {
		t.Fatalf("answer %+v, %v", a, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
