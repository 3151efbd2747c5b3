package app

import (
	"net/http"
	neturl "net/url"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/internal/tcpcut"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// PostgreSQL goes away in the middle of a turn (every connection cut while
// the model answers): the turn stops with an error that says so; once the
// server is back the session continues with what was stored, nothing half
// written.
func TestDatabaseLostMidTurn(t *testing.T) {
	u, err := neturl.Parse(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := tcpcut.New(t, u.Host)
	u.Host = proxy.Addr
	srv := openaitest.NewServer(t,
		func(w http.ResponseWriter, r *http.Request) {
			proxy.Cut()
			openaitest.Answer("lost on the way")(w, r)
		},
		openaitest.Answer("back again"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	e.vars["MOTEUR_DATABASE_URL"] = u.String()
	e.vars["MOTEUR_LEASE_TTL"] = "1s"

	s := e.open(t, e.options("s-lost"))
	err = s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "hello"})
	_ = s.Close() // its lease cannot be released: the server is gone
	if proxy.Accepted() == 0 {
		t.Fatal("the session never went through the proxy")
	}
	if err == nil || !strings.Contains(err.Error(), "connection to PostgreSQL was lost") {
		t.Errorf("the turn: %v; want an error saying PostgreSQL was lost", err)
	}
	proxy.Restore(t)
	// The lease the cut kept from being released expires (1s): until then
	// the session is in use, by this very process.
	var s2 *Session
	for s2 == nil {
		var oerr error
		if s2, oerr = Open(t.Context(), e.options("s-lost")); oerr != nil && !strings.Contains(oerr.Error(), "in use by this process") {
			t.Fatalf("open again: %v", oerr)
		}
	}
	defer s2.Close()
	if err := s2.Engine.SubmitInput(t.Context(), s2.ID, engine.Input{Text: "again"}); err != nil {
		t.Fatalf("the next turn: %v", err)
	}
	srv.CheckPairing(t)
	// The answer the cut kept from the store came back from the audit log,
	// where it had been written first.
	var got []string
	for _, m := range srv.Requests()[1].Messages[1:] {
		got = append(got, string(m.Role)+": "+m.Content)
	}
	if want := []string{"user: hello", "assistant: lost on the way", "user: again"}; !slices.Equal(got, want) {
		t.Errorf("the next turn sent %q, want %q", got, want)
	}
}
