package rag_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/routing"
)

// A model that fails transiently is retried as the engine retries a turn
// (each retry recorded), then the passages already found are quoted, with
// a warning that says why.
func TestModelDownIsRetriedThenQuoted(t *testing.T) {
	down := openaitest.Status(503, "server_error", "overloaded")
	srv := openaitest.NewServer(t, down, down, down)
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Lang: i18n.FR})
	rec := &recorded{}
	a, err := p.Ask(context.Background(), "jours de congés payés", nil, rec.emit, rag.WithRetryDelays([]time.Duration{0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (one and two retries)", n)
	}
	if !a.Extractive || !strings.Contains(a.Text, "2,5 jours") {
		t.Fatalf("answer %+v: want the passages quoted", a)
	}
	retries := 0
	for _, typ := range rec.types {
		if typ == event.ProviderRetry {
			retries++
		}
	}
	if retries != 2 {
		t.Fatalf("events %v: want two ProviderRetry", rec.types)
	}
	w := rec.payload(t, func(p any) bool { _, ok := p.(event.WarningPayload); return ok }).(event.WarningPayload)
	if w.Kind != "provider" || !strings.Contains(w.Message, "overloaded") || !strings.Contains(w.Message, "citation des passages") {
		t.Fatalf("warning %+v: want the reason, in French", w)
	}
}

// The provider's name is said once in the error of a failed generation.
func TestProviderNamedOnce(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Status(401, "invalid_api_key", "bad key"))
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Lang: i18n.EN})
	rec := &recorded{}
	if _, err := p.Ask(context.Background(), "jours de congés payés", nil, rec.emit); err != nil {
		t.Fatal(err)
	}
	w := rec.payload(t, func(p any) bool { _, ok := p.(event.WarningPayload); return ok }).(event.WarningPayload)
	name := "remote" // the router's provider
	if strings.Count(w.Message, name+":") > 1 {
		t.Fatalf("warning %q names the provider twice", w.Message)
	}
}

type failingStore struct{ calls int }

func (f *failingStore) Search(context.Context, kb.Query) (kb.Result, error) {
	f.calls++
	return kb.Result{}, errors.New("no searchable index")
}

// A first question whose search fails records nothing: the session it
// would have started is not stored.
func TestFailedFirstSearchRecordsNothing(t *testing.T) {
	st := &failingStore{}
	p, err := rag.New(rag.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{}
	if _, err := p.Ask(context.Background(), "jours de congés payés", nil, rec.emit); err == nil {
		t.Fatal("a failed search gave no error")
	}
	if st.calls != 1 {
		t.Fatalf("%d searches: the search was not attempted", st.calls)
	}
	if len(rec.types) != 0 {
		t.Fatalf("events %v recorded for a question that could not be searched", rec.types)
	}
}

// An empty result's hint is in the session's language, as the answer.
func TestNoPassageHintInOneLanguage(t *testing.T) {
	p := pipeline(t, rag.Config{Lang: i18n.FR, Mode: kb.ModeKeyword})
	a, err := p.Ask(context.Background(), "zzqx wkpv", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Text, "Aucun passage") || strings.Contains(a.Text, "No passage") {
		t.Fatalf("answer %q mixes languages", a.Text)
	}
}

// A question cancelled while the model answers is not quoted instead: it
// ends, as every turn ends, with an Error and a TurnCompleted cancelled.
func TestCancelledGenerationEndsTheTurn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var arrived atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server sees the client hang up only once the body is read.
		_, _ = io.ReadAll(r.Body)
		arrived.Store(true)
		cancel() // the user presses Ctrl-C once the request is out
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, err := openai.New(openai.Config{Name: "remote", BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: c, Endpoint: c.Endpoint()}}})
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline(t, rag.Config{Router: r})
	rec := &recorded{}
	if _, err := p.Ask(ctx, "jours de congés payés", nil, rec.emit); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if !arrived.Load() {
		t.Fatal("the request never reached the model")
	}
	n := len(rec.types)
	if n < 2 || rec.types[n-2] != event.Error || rec.types[n-1] != event.TurnCompleted || slices.Contains(rec.types, event.Warning) {
		t.Fatalf("events %v: want the error and the turn's end, no fallback", rec.types)
	}
	tc := rec.payload(t, func(p any) bool { _, ok := p.(event.TurnCompletedPayload); return ok }).(event.TurnCompletedPayload)
	if tc.Reason != event.StopCancelled {
		t.Fatalf("turn %+v, want cancelled", tc)
	}
}
