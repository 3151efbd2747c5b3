package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/provider/openai/openaitest"
)

// runFast runs args as h.run does, with the quick answer's retries
// without their waits.
func (h *harness) runFast(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	c := newCLI(envMap(h.env), h.stdin, &out, &errOut)
	c.workDir = func() (string, error) { return h.dir, nil }
	c.retryDelays = []time.Duration{0, 0}
	code := c.execute(t.Context(), args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// A model that is down is retried as run retries it (three requests in
// all), then the passages found are quoted, with a warning on stderr that
// says why: the question is answered, exit 0.
func TestAskModelDownRetriesThenQuotes(t *testing.T) {
	down := openaitest.Status(503, "server_error", "overloaded")
	srv := openaitest.NewServer(t, down, down, down)
	h := newKBHarness(t)
	withBase(t, h, "docs")
	withModel(h, srv)
	res := h.runFast(t, "ask", "--lang", "en", congesQuestion)
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests reached the model, want 3 (one and two retries)", n)
	}
	if !strings.Contains(res.stdout, "30 jours par an") || !strings.Contains(res.stdout, "[c1]") {
		t.Errorf("stdout %q: want the passage quoted with its citation", res.stdout)
	}
	if !strings.Contains(res.stderr, "moteur: warning: the model did not answer (") || !strings.Contains(res.stderr, "overloaded") ||
		!strings.Contains(res.stderr, "answered by quoting the passages found") {
		t.Errorf("stderr %q: want a warning that says why the passages are quoted", res.stderr)
	}
}

// A server that is not running: the warning asks whether it runs, at its
// URL, and names the provider once.
func TestAskServerNotRunningSaysSo(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	base := gone.URL + "/v1"
	gone.Close()
	h := newKBHarness(t)
	withBase(t, h, "docs")
	h.env["MOTEUR_BASE_URL"], h.env["MOTEUR_MODEL"] = base, "m"
	res := h.runFast(t, "ask", "--lang", "en", congesQuestion)
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	host := strings.TrimPrefix(gone.URL, "http://")
	if !strings.Contains(res.stderr, "is the server at "+base+" running?") || strings.Contains(res.stderr, host+": "+host+":") ||
		strings.Contains(res.stderr, `Post "`) {
		t.Errorf("stderr %q: want the question with the URL, the provider named once", res.stderr)
	}
	if !strings.Contains(res.stdout, "[c1]") {
		t.Errorf("stdout %q: want the passages quoted", res.stdout)
	}
}

// A provider whose api_key_env names an unset variable: ask says so before
// any request, and again when the server refuses the missing key.
func TestAskUnsetKeyVariableIsNamed(t *testing.T) {
	h, requests := unsetKeyProvider(t)
	withBase(t, h, "docs")
	res := h.runFast(t, "ask", "--lang", "en", congesQuestion)
	if res.code != 0 || requests.Load() != 1 {
		t.Fatalf("exit %d, %d requests, stderr %q", res.code, requests.Load(), res.stderr)
	}
	const named = "the variable ACME_API_KEY named by api_key_env is not set"
	start, _, _ := strings.Cut(res.stderr, "\n")
	if !strings.Contains(start, "provider acme: "+named) {
		t.Errorf("first stderr line %q: want the variable named before the request", start)
	}
	if !strings.Contains(res.stderr, "missing key: "+named) {
		t.Errorf("stderr %q: want the 401 to name the variable", res.stderr)
	}
}

// An ask that fails before answering (here: no knowledge base to search)
// stores no session: no stored session, no audit log, no transcript.
func TestFailedAskStoresNoSession(t *testing.T) {
	h := newKBHarness(t)
	res := h.run(t, "ask", congesQuestion)
	if res.code == 0 || !strings.Contains(res.stderr, "no knowledge base") {
		t.Fatalf("exit %d, stderr %q: want the search's failure", res.code, res.stderr)
	}
	list := h.run(t, "sessions", "list", "--json")
	if list.code != 0 || strings.TrimSpace(list.stdout) != "[]" {
		t.Errorf("sessions list: exit %d, %q: want none stored", list.code, list.stdout)
	}
	for _, sub := range []string{"audit", "transcripts"} {
		entries, _ := os.ReadDir(filepath.Join(h.home(), sub))
		if len(entries) != 0 {
			t.Errorf("%s holds %d files after a failed ask", sub, len(entries))
		}
	}
}

// One language per run: French by default, English with --lang en, in the
// answer, the hint of an empty result and the session line alike.
func TestAskSpeaksOneLanguage(t *testing.T) {
	h := newKBHarness(t)
	delete(h.env, "MOTEUR_LANG") // French by default
	withBase(t, h, "docs")
	fr := h.run(t, "ask", "--mode", "keyword", "zzqx wkpv")
	if fr.code != 0 || !strings.Contains(fr.stdout, "Aucun passage") || !strings.Contains(fr.stderr, "pour continuer") {
		t.Fatalf("French run: exit %d, stdout %q, stderr %q", fr.code, fr.stdout, fr.stderr)
	}
	for _, en := range []string{"No passage", "No relevant", "continue with"} {
		if strings.Contains(fr.stdout+fr.stderr, en) {
			t.Errorf("French run says %q:\n%s%s", en, fr.stdout, fr.stderr)
		}
	}
	en := h.run(t, "ask", "--lang", "en", "--mode", "keyword", "zzqx wkpv")
	if en.code != 0 || !strings.Contains(en.stdout, "No relevant passage") || strings.Contains(en.stdout, "Aucun") ||
		!strings.Contains(en.stderr, "continue with") {
		t.Errorf("English run: exit %d, stdout %q, stderr %q", en.code, en.stdout, en.stderr)
	}
}

// run names an unset api_key_env variable before its first request, as
// ask does, and again on the server's 401.
func TestRunUnsetKeyVariableIsNamed(t *testing.T) {
	h, requests := unsetKeyProvider(t)
	res := h.run(t, "run", "--lang", "en", "hello")
	if res.code != 1 || requests.Load() == 0 {
		t.Fatalf("exit %d, %d requests, stderr %q: want the request refused", res.code, requests.Load(), res.stderr)
	}
	const named = "the variable ACME_API_KEY named by api_key_env is not set"
	start, _, _ := strings.Cut(res.stderr, "\n")
	if !strings.Contains(start, named) {
		t.Errorf("first stderr line %q: want the variable named before the request", start)
	}
	if strings.Count(res.stderr, named) < 2 {
		t.Errorf("stderr %q: want the 401 to name the variable too", res.stderr)
	}
}

// kb create --analyzer refuses a value it does not know as bad usage.
func TestKBCreateUnknownAnalyzerIsUsage(t *testing.T) {
	h := newKBHarness(t)
	res := h.run(t, "kb", "create", "docs", "--analyzer", "foo")
	if res.code != 2 || !strings.Contains(res.stderr, `"foo" is not one of snowball, moteur, raw`) {
		t.Errorf("exit %d, stderr %q: want 2 and the analyzers listed", res.code, res.stderr)
	}
}

// unsetKeyProvider is a harness whose configuration's provider "acme"
// names its key by api_key_env ACME_API_KEY, a variable left unset, on a
// server that refuses every request with a 401 and counts them.
func unsetKeyProvider(t *testing.T) (*harness, *atomic.Int32) {
	t.Helper()
	requests := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"missing key","type":"invalid_request_error"}}`))
	}))
	t.Cleanup(srv.Close)
	h := newKBHarness(t)
	cfg := "providers:\n  - name: acme\n    base_url: " + srv.URL + "/v1\n    model: m\n    api_key_env: ACME_API_KEY\n"
	dir := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return h, requests
}
