package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/web"
)

// The web tools' gate refuses what the outbound check refuses — a host
// the allowlist lacks, a marked query to a provider that is not local —
// and lets the rest through.
func TestWebGateIsTheOutboundCheck(t *testing.T) {
	cl, err := classify.New(classify.Rules{Markings: []string{"PROJET ALPHA"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := policy.NewOutbound(policy.OutboundConfig{Classifier: cl,
		Allowlists: []hostmatch.List{hostmatch.MustParse("search.example", "docs.example")}})
	if err != nil {
		t.Fatal(err)
	}
	g := webGate{out: out}
	for _, tc := range []struct {
		send    web.Send
		refused string // the rule, "" when allowed
	}{
		{web.Send{Kind: web.SendSearch, Host: "search.example", Text: "congés payés"}, ""},
		{web.Send{Kind: web.SendFetch, Host: "docs.example", Text: "https://docs.example/a"}, ""},
		{web.Send{Kind: web.SendFetch, Host: "evil.example", Text: "https://evil.example/"}, "allowlist"},
		{web.Send{Kind: web.SendSearch, Host: "search.example", Text: "budget du PROJET ALPHA"}, "classification"},
		{web.Send{Kind: web.SendSearch, Host: "search.example", Text: "budget du PROJET ALPHA", Local: true}, ""},
	} {
		err := g.CheckWeb(context.Background(), tc.send)
		var r *policy.Refusal
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%+v refused: %v", tc.send, err)
		case tc.refused != "" && (!errors.As(err, &r) || !strings.HasPrefix(r.Rule, tc.refused)):
			t.Errorf("%+v: %v, want a refusal by %s", tc.send, err, tc.refused)
		}
	}
}

// Through web_fetch, a refused host gets no request at all while an
// allowed one does.
func TestWebGateRefusalSendsNothing(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("bonjour"))
	}))
	t.Cleanup(srv.Close)
	out, err := policy.NewOutbound(policy.OutboundConfig{Allowlists: []hostmatch.List{hostmatch.MustParse("docs.example")}})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.Config{})
	host := strings.TrimPrefix(srv.URL, "http://")
	if err := web.Register(reg, web.Config{Gate: webGate{out: out}, AllowPrivateHosts: []string{host}}); err != nil {
		t.Fatal(err)
	}
	call := llm.ToolCall{ID: "call_1", Name: "web_fetch", Arguments: `{"items":[{"url":"` + srv.URL + `/a"}]}`}
	res := reg.Execute(context.Background(), call)
	if hits.Load() != 0 || !strings.Contains(res.Content, "allowlist") {
		t.Errorf("%d requests; result %q: want none and the allowlist named", hits.Load(), res.Content)
	}
	allowed, err := policy.NewOutbound(policy.OutboundConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg = tools.NewRegistry(tools.Config{})
	if err := web.Register(reg, web.Config{Gate: webGate{out: allowed}, AllowPrivateHosts: []string{host}}); err != nil {
		t.Fatal(err)
	}
	res = reg.Execute(context.Background(), call)
	if hits.Load() != 1 || !strings.Contains(res.Content, "bonjour") {
		t.Errorf("allowed: %d requests, result %q", hits.Load(), res.Content)
	}
}
