package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/routing"
	"github.com/moteur/moteur/tools"
)

const classified = "Note DIFFUSION RESTREINTE : le plan de reprise."

// TestHostNotAllowedSendsNothing: the server is never reached.
func TestHostNotAllowedSendsNothing(t *testing.T) {
	srv := openaitest.NewServer(t)
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for name, tweak := range map[string]func(*Deps){
		"allowlist": func(d *Deps) { d.Allowlists = []hostmatch.List{hostmatch.MustParse("api.mistral.ai")} },
		"org policy": func(d *Deps) {
			d.Policy = &orgpolicy.Policy{Path: "/etc/moteur/policy.yaml", AllowedHosts: hostmatch.MustParse("llm.corp.example")}
		},
		"airgapped": func(d *Deps) { d.Profile = profile.Airgapped },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil, nil, func(d *Deps) { d.Provider = client; tweak(d) })
			err := h.submit("bonjour")
			if !errors.Is(err, policy.ErrRefused) {
				t.Fatalf("Submit = %v, want a refusal", err)
			}
			ep := last[event.ErrorPayload](t, h.drain(), event.Error)
			if ep.Kind != "outbound" || !strings.Contains(ep.Message, "127.0.0.1") {
				t.Errorf("Error event = %+v, want the outbound rule and the host", ep)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server received %d requests", n)
	}
}

func TestClassifiedContentNeverReachesARemoteProvider(t *testing.T) {
	remote := scripted.New(scripted.Config{Name: "cloud", Endpoint: "https://api.mistral.ai/v1", Steps: []scripted.Step{{Text: "non"}}})
	h := newHarness(t, nil, nil, func(d *Deps) { d.Provider = remote })
	err := h.submit(classified)
	if !errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), "DIFFUSION RESTREINTE") {
		t.Fatalf("Submit = %v, want a refusal naming the marking", err)
	}
	if n := len(remote.Requests()); n != 0 {
		t.Errorf("the remote provider received %d requests", n)
	}
}

func TestClassifiedContentRoutesToTheLocalProvider(t *testing.T) {
	remote := scripted.New(scripted.Config{Name: "cloud", Steps: []scripted.Step{{Text: "distant"}}})
	local := scripted.New(scripted.Config{Name: "local", Steps: []scripted.Step{{Text: "local 1"}, {Text: "local 2"}}})
	router, err := routing.New(routing.Config{Candidates: []routing.Candidate{
		{Provider: remote, Endpoint: "https://api.mistral.ai/v1"},
		{Provider: local, Endpoint: "http://127.0.0.1:11434/v1", Local: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, nil, func(d *Deps) { d.Router = router })
	if err := h.submit(classified); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("et ensuite ?"); err != nil {
		t.Fatal(err)
	}
	if n, m := len(remote.Requests()), len(local.Requests()); n != 0 || m != 2 {
		t.Errorf("remote got %d requests, local %d; want 0 and 2", n, m)
	}
	evs := h.sink.all()
	if c := last[event.SessionClassifiedPayload](t, evs, event.SessionClassified); c.Marking != "DIFFUSION RESTREINTE" || c.Source != "user" {
		t.Errorf("SessionClassified = %+v", c)
	}
	if countType(evs, event.SessionClassified) != 1 {
		t.Errorf("the session is classified once, for good")
	}
	if ps := last[event.ProviderSelectedPayload](t, evs, event.ProviderSelected); ps.Provider != "local" || !ps.Local {
		t.Errorf("ProviderSelected = %+v", ps)
	}
	started := evs[0].Payload.(event.SessionStartedPayload)
	if started.Routing == nil || len(started.Routing.Candidates) != 2 || !started.Routing.Candidates[1].Local {
		t.Errorf("SessionStarted routing = %+v", started.Routing)
	}
	// A restored session stays sensitive.
	r := newHarness(t, nil, nil, func(d *Deps) { d.Router = router })
	if err := r.e.Restore("s1", evs); err != nil {
		t.Fatal(err)
	}
	if !r.e.existing("s1").st.sensitive {
		t.Error("Restore lost the classification")
	}
}

func TestFallbackAfterTransientErrorsToTheNextCandidate(t *testing.T) {
	busy := scripted.Fail(provider.Transient, 503, "overloaded")
	first := scripted.New(scripted.Config{Name: "first", Steps: []scripted.Step{busy, busy, busy}})
	second := scripted.New(scripted.Config{Name: "second", Steps: []scripted.Step{{Text: "relève"}}})
	router, _ := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: first}, {Provider: second}}})
	h := newHarness(t, nil, nil, func(d *Deps) { d.Router = router })
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	ps := last[event.ProviderSelectedPayload](t, evs, event.ProviderSelected)
	if ps.Provider != "second" || !strings.Contains(ps.Reason, "overloaded") {
		t.Errorf("ProviderSelected = %+v", ps)
	}
	if am := last[event.AssistantMessagePayload](t, evs, event.AssistantMessage); am.Provider != "second" {
		t.Errorf("the answer is credited to %q", am.Provider)
	}
	if tc := completed(t, evs); tc.Answer != "relève" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestRemoteAnswersAreNotRecheckedForMarkings(t *testing.T) {
	remote := scripted.New(scripted.Config{Name: "cloud", Endpoint: "https://api.mistral.ai/v1",
		Steps: []scripted.Step{{Text: "Le tampon DIFFUSION RESTREINTE se place en haut."}, {Text: "ok"}}})
	h := newHarness(t, nil, nil, func(d *Deps) { d.Provider = remote })
	if err := h.submit("Où place-t-on le tampon de diffusion ?"); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("Merci"); err != nil {
		t.Fatalf("the model's own words were refused: %v", err)
	}
}

func TestJurisdictionWarningOncePerSession(t *testing.T) {
	remote := scripted.New(scripted.Config{Name: "cloud", Endpoint: "https://api.example.com/v1",
		Steps: []scripted.Step{{Text: "a"}, {Text: "b"}}})
	h := newHarness(t, nil, nil, func(d *Deps) {
		d.Provider = remote
		d.Profile = profile.Restricted
		d.Allowlists = []hostmatch.List{hostmatch.MustParse("api.example.com")}
	})
	for _, q := range []string{"un", "deux"} {
		if err := h.submit(q); err != nil {
			t.Fatal(err)
		}
	}
	evs := h.sink.all()
	if n := countType(evs, event.Warning); n != 1 {
		t.Errorf("%d warnings, want 1 per session", n)
	}
	if started := evs[0].Payload.(event.SessionStartedPayload); started.Profile != "restricted" {
		t.Errorf("SessionStarted profile = %q", started.Profile)
	}
}

// A result classified without a marking in its text (a knowledge-base
// document under a classified path) makes the session sensitive, even with
// no local provider: the next request goes nowhere remote.
func TestClassifiedResultStopsRemoteSends(t *testing.T) {
	kb := &fakeTool{name: "search_knowledge", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "La fusion est prévue pour mars.", Classified: "path:dossiers/**"}, nil
	}}
	remote := scripted.New(scripted.Config{Name: "cloud", Endpoint: "https://api.mistral.ai/v1",
		Steps: []scripted.Step{scripted.Call("k1", "search_knowledge", `{}`), {Text: "jamais envoyé"}}})
	h := newHarness(t, nil, []tools.Tool{kb}, func(d *Deps) { d.Provider = remote })
	err := h.submit("quand est la fusion ?")
	if err == nil || !strings.Contains(err.Error(), "sensitive") {
		t.Fatalf("Submit = %v, want a refusal: the session became sensitive", err)
	}
	if n := len(remote.Requests()); n != 1 {
		t.Fatalf("the remote provider received %d requests, want only the first, before the result", n)
	}
	c := last[event.SessionClassifiedPayload](t, h.sink.all(), event.SessionClassified)
	if c.Marking != "path:dossiers/**" || c.Source != "tool search_knowledge" {
		t.Fatalf("SessionClassified = %+v", c)
	}
}
