package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// serveKey makes an API key in the data directory home.
func serveKey(t *testing.T, home string) string {
	t.Helper()
	return newAPIKey(t, apikey.Config{Path: session.DefaultPath(home)})
}

// newAPIKey makes an API key in the database of cfg and returns its secret.
func newAPIKey(t *testing.T, cfg apikey.Config) string {
	t.Helper()
	keys, err := apikey.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	secret, _, err := keys.Create(t.Context(), "test", apikey.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// postChat asks a question on the agent route and returns the stream's
// event types as they come, one per line, on a channel closed at its end.
func postChat(t *testing.T, ctx context.Context, url, key, id, query string) (*http.Response, <-chan string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/api/v1/agent-chat/"+id, strings.NewReader(`{"query":"`+query+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("agent-chat %s: %d %s", id, resp.StatusCode, b)
	}
	types := make(chan string, 64)
	go func() {
		defer close(types)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if typ, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				types <- typ
			}
		}
	}()
	return resp, types
}

// waitType reads event types until typ.
func waitType(t *testing.T, types <-chan string, typ string) {
	t.Helper()
	var seen []string
	for got := range types {
		if got == typ {
			return
		}
		seen = append(seen, got)
	}
	t.Fatalf("the stream ended without %s: %s", typ, strings.Join(seen, " "))
}

// said reports whether a request sent to the model holds a user message
// with text.
func said(r openaitest.Request, text string) bool {
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser && strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// TestServeSharesSessionsWithTheCLIAndDrainsOnSIGTERM runs the real
// binary: a session of the terminal continues in the browser and one of
// the browser in the terminal, and SIGTERM lets the running turn finish.
func TestServeSharesSessionsWithTheCLIAndDrainsOnSIGTERM(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{})
	model := openaitest.NewServer(t,
		openaitest.Answer("cli answer"),
		openaitest.Answer("browser answer"),
		func(w http.ResponseWriter, r *http.Request) {
			close(arrived)
			<-release
			openaitest.Answer("finished while draining")(w, r)
		},
		openaitest.Answer("the terminal continues"),
	)
	p := newProcs(t, model.BaseURL())
	if res := p.run("run", "--new-session", "s-cli", "from the terminal"); res.code != 0 {
		t.Fatalf("run: %d %s", res.code, res.stderr)
	}
	key := serveKey(t, p.home)
	srv := p.start("serve", "--addr", "127.0.0.1:0")
	line := srv.stderr.waitForText(t, "serving on http://")
	url := strings.Fields(strings.SplitAfter(line, "serving on ")[1])[0]

	// The terminal's session, continued from the browser.
	resp, types := postChat(t, p.ctx, url, key, "s-cli", "from the browser")
	waitType(t, types, "TurnCompleted")
	resp.Body.Close()
	if reqs := model.Requests(); !said(reqs[1], "from the terminal") || !said(reqs[1], "from the browser") {
		t.Fatalf("the browser's turn did not carry the terminal's history: %+v", reqs[1].Messages)
	}

	// A turn runs when SIGTERM comes: it finishes, then the server stops.
	resp, types = postChat(t, p.ctx, url, key, "s-web", "a long question")
	defer resp.Body.Close()
	<-arrived
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	srv.stderr.waitForText(t, "shutting down")
	close(release)
	waitType(t, types, "TurnCompleted")
	if err := srv.wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, srv.stderr.text())
	}
	srv.stderr.waitForText(t, "moteur: stopped")

	// The browser's session, continued in the terminal.
	if res := p.run("run", "--session", "s-web", "next"); res.code != 0 || !strings.Contains(res.stdout, "the terminal continues") {
		t.Fatalf("run --session s-web: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if reqs := model.Requests(); !said(reqs[3], "a long question") {
		t.Fatalf("the terminal's turn did not carry the browser's history: %+v", reqs[3].Messages)
	}
}
