package server

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/moteur/moteur/internal/testenv"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// The page is served at / and its files under /assets/, each with the
// strict Content-Security-Policy, gzipped when asked, revalidated by ETag.
func TestPageServedWithItsPolicy(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	for _, c := range []struct{ path, ctype, holds string }{
		{"/", "text/html; charset=utf-8", `<script src="/assets/app.js" defer></script>`},
		{"/assets/app.js", "text/javascript; charset=utf-8", "readSSE"},
		{"/assets/i18n.js", "text/javascript; charset=utf-8", "MOTEUR_STRINGS"},
		{"/assets/app.css", "text/css; charset=utf-8", ".approval"},
	} {
		resp := ts.do("GET", c.path, "", nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != c.ctype || !strings.Contains(string(body), c.holds) {
			t.Errorf("GET %s: %d %s, body holds %q: %v", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.holds, strings.Contains(string(body), c.holds))
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != pageCSP || !strings.Contains(got, "default-src 'self'") ||
			!strings.Contains(got, "script-src 'self';") || strings.Contains(got, "unsafe-inline") {
			t.Errorf("GET %s: Content-Security-Policy %q", c.path, got)
		}

		// Gzipped, the same bytes.
		req, _ := http.NewRequest("GET", ts.http.URL+c.path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		gz, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if gz.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("GET %s with Accept-Encoding gzip: Content-Encoding %q", c.path, gz.Header.Get("Content-Encoding"))
		} else {
			zr, err := gzip.NewReader(gz.Body)
			if err != nil {
				t.Fatal(err)
			}
			unzipped, _ := io.ReadAll(zr)
			if string(unzipped) != string(body) {
				t.Errorf("GET %s: gzipped body differs from the plain one", c.path)
			}
		}
		gz.Body.Close()

		// Revalidation: the same ETag is a 304 with no body.
		req, _ = http.NewRequest("GET", ts.http.URL+c.path, nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		nm, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(nm.Body)
		nm.Body.Close()
		if resp.Header.Get("ETag") == "" || nm.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Errorf("GET %s with If-None-Match %s: %d, %d bytes", c.path, resp.Header.Get("ETag"), nm.StatusCode, len(b))
		}
	}
	for _, p := range []string{"/assets/missing.js", "/assets/", "/nothing-here"} {
		if resp := ts.do("GET", p, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, resp.StatusCode)
		}
	}
	// The API stays JSON and authenticated beside the page.
	wantError(t, ts.do("GET", "/api/v1/sessions", "", nil), http.StatusUnauthorized, CodeUnauthorized)
}

// The page's files hold no inline script or style and load nothing from
// elsewhere: no URL of another origin anywhere in them.
func TestPageFilesAreSelfContained(t *testing.T) {
	files, err := loadPage()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("embedded files: %d, want index.html, app.js, i18n.js, app.css", len(files))
	}
	index := string(files["index.html"].raw)
	for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAllString(index, -1) {
		if !strings.Contains(m, `src="/assets/`) {
			t.Errorf("index.html has an inline script: %s", m)
		}
	}
	if regexp.MustCompile(`\sstyle=|\son[a-z]+=|<style`).MatchString(index) {
		t.Errorf("index.html has an inline style or event handler")
	}
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|url\(`)
	for name, f := range files {
		if m := external.FindString(string(f.raw)); m != "" {
			t.Errorf("%s refers to %q: the page must load nothing from elsewhere", name, m)
		}
		if strings.HasSuffix(name, ".js") && strings.Contains(string(f.raw), "innerHTML") {
			t.Errorf("%s uses innerHTML: insert text with textContent", name)
		}
	}
}

// chromiumPath is Debian's chromium, or "" with the reason it is missing.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(t, "chromium is not installed (apt-get install -y chromium): the page is not tested in a browser")
	return ""
}

// browser is a headless Chromium with one tab; problems collects what the
// page reported: exceptions, console errors, CSP violations.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	b := &browser{ctx: ctx}
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser, with no deadline
		t.Fatalf("start chromium %s: %v", exe, err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.report("exception: " + msg)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.report("console.error: " + strings.Join(args, " "))
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				b.report("log: " + e.Entry.Text + " " + e.Entry.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable the log domain: %v", err)
	}
	return b
}

func (b *browser) report(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, s)
}

func (b *browser) reported() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// click waits for the element sel selects to be visible, then clicks the
// one it selects at that moment, in the page: the page redraws parts of
// itself as events arrive (a reload replays them), and a node found
// earlier may be gone by the time a CDP click reaches it.
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel)))
}

// clickID is click on the element of that id.
func clickID(id string) chromedp.Action[chromedp.Void] { return click("#" + id) }

// step bounds one step of a test.
const step = 45 * time.Second

// do runs actions with a deadline, failing the test with the step that
// did not happen and what the page showed.
func (b *browser) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fail(t, what, err)
	}
}

func (b *browser) fail(t *testing.T, what string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(".view:not([hidden])") || document.body).outerHTML.slice(0, 6000)`))
	t.Fatalf("%s: %v\nproblems reported by the page: %v\npage: %s", what, err, b.reported(), html)
}

// value runs one action that returns a value, with a deadline.
func value[T any](t *testing.T, b *browser, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.fail(t, what, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	return value(t, b, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// text is the visible text of the first element matching css.
func text(t *testing.T, b *browser, css string) string {
	t.Helper()
	return value(t, b, "read "+css, chromedp.Text(chromedp.CSS(css)))
}

// noProblems fails the test with whatever the page reported, the CSP
// violations among them.
func (b *browser) noProblems(t *testing.T, allowed ...string) {
	t.Helper()
	var bad []string
	for _, p := range b.reported() {
		if !slices.ContainsFunc(allowed, func(a string) bool { return strings.Contains(p, a) }) {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Errorf("the page reported problems:\n%s", strings.Join(bad, "\n"))
	}
}

// loadStats is what the browser measured of a page load.
type loadStats struct{ Duration, Transferred, Bodies float64 }

func pageLoad(t *testing.T, b *browser) loadStats {
	t.Helper()
	return eval[loadStats](t, b, `(() => {
		const nav = performance.getEntriesByType("navigation")[0];
		const all = [nav, ...performance.getEntriesByType("resource")];
		return {Duration: nav.loadEventEnd - nav.startTime,
			Transferred: all.reduce((n, e) => n + e.transferSize, 0),
			Bodies: all.reduce((n, e) => n + e.encodedBodySize, 0)};
	})()`)
}

// pageBaseDocs are the documents of the base the page's tests search.
var pageBaseDocs = []kb.Text{
	{Key: "conges.md", Name: "conges.md", Title: "Congés payés",
		Body: "# Congés payés\n\nChaque salarié a droit à 30 jours ouvrables de congés payés par an, posés avec l'accord de son responsable.\n"},
	{Key: "teletravail.md", Name: "teletravail.md", Title: "Télétravail",
		Body: "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période d'essai.\n"},
}

// addPageBase creates a knowledge base holding pageBaseDocs in ts's data.
func addPageBase(t *testing.T, ts *testServer, name string) {
	t.Helper()
	st, err := kb.Open(t.Context(), kb.Config{Path: session.DefaultPath(ts.home)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Create(t.Context(), name, kb.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range pageBaseDocs {
		if _, err := st.AddText(t.Context(), name, d); err != nil {
			t.Fatal(err)
		}
	}
}

// A user signs in, asks a question with a knowledge base, sees the write
// the agent wants to make as an approval card, reloads the page (the card
// is there again, still answerable), approves, watches the tool calls and
// the answer arrive, and opens the citation: its passage and its
// document. The write happened, once.
func TestPageAskApproveReloadCite(t *testing.T) {
	ts := newTestServer(t, testOptions{mode: "confirm"},
		openaitest.Calls("call_w", "write_file", `{"path":"notes/conges.txt","content":"30 jours"}`),
		openaitest.Calls("call_s", "search_knowledge", `{"query":"congés payés par an","mode":"keyword"}`),
		openaitest.Stream(openaitest.Reasoning("Le passage c1 répond."), openaitest.Text("Trente jours "),
			openaitest.Text("ouvrables par an [c1]."), openaitest.Chunk(`{}`, "stop"), openaitest.Done))
	addPageBase(t, ts, "manuel-rh")
	b := newBrowser(t)

	// First load, as the browser measured it: a cold tab, then a reload
	// with the cache off (what a new visitor's browser fetches).
	b.do(t, "load the page", chromedp.Navigate(ts.http.URL+"/"), chromedp.WaitVisible(chromedp.ID("signin-key")))
	cold := pageLoad(t, b)
	if _, err := chromedp.Call(b.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatal(err)
	}
	b.do(t, "reload the page, no cache", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("signin-key")))
	warm := pageLoad(t, b)
	t.Logf("first load (cold tab): %.1f ms, %.0f bytes transferred, %.0f bytes of bodies", cold.Duration, cold.Transferred, cold.Bodies)
	t.Logf("first load (no cache): %.1f ms, %.0f bytes transferred, %.0f bytes of bodies", warm.Duration, warm.Transferred, warm.Bodies)
	if warm.Bodies == 0 || warm.Transferred == 0 {
		t.Errorf("first load: nothing measured: %+v", warm)
	}
	b.do(t, "choose French", chromedp.SetValue(chromedp.ID("lang"), "fr"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("lang").dispatchEvent(new Event("change"))`))

	// A wrong key is refused with the server's reason.
	b.do(t, "sign in with a wrong key",
		chromedp.SendKeys(chromedp.ID("signin-key"), "mk_nope_0000000000000000000000000000000000"),
		click(`#signin-form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#signin-error.error`)))
	if refused := text(t, b, "#signin-error"); !strings.Contains(refused, "Clé refusée") || !strings.Contains(refused, "invalid API key") {
		t.Errorf("sign-in error %q, want the server's message", refused)
	}

	// Sign in, pick the base, ask.
	b.do(t, "sign in and ask",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("signin-key").value = ""`),
		chromedp.SendKeys(chromedp.ID("signin-key"), ts.key),
		click(`#signin-form button[type=submit]`),
		chromedp.WaitVisible(chromedp.ID("chat-input")),
		chromedp.WaitReady(chromedp.CSS(`#chat-bases input[value="manuel-rh"]`)),
		click("details.bases summary"),
		click(`#chat-bases input[value="manuel-rh"]`),
		clickID("chat-mode-smart"),
		chromedp.WaitEnabled(chromedp.ID("chat-send")),
		chromedp.SendKeys(chromedp.ID("chat-input"), "Combien de jours de congés par an ? Note-le."),
		clickID("chat-send"),
		chromedp.WaitVisible(chromedp.CSS(`.approval:not(.resolved) button.approve`)))
	card := text(t, b, ".approval")
	if !strings.Contains(card, "write_file") || !strings.Contains(card, "notes/conges.txt") {
		t.Errorf("approval card %q, want the tool and the file", card)
	}
	hash := eval[string](t, b, `location.hash`)
	id := strings.TrimPrefix(hash, "#/chat/")
	if id == hash || id == "" {
		t.Fatalf("location.hash %q names no session", hash)
	}
	if _, err := os.Stat(filepath.Join(ts.root, "notes", "conges.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file exists before the approval: %v", err)
	}

	// A reload during the approval shows the card again, answerable.
	b.do(t, "reload during the approval",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`.approval:not(.resolved) button.approve`)))
	if got := eval[string](t, b, `location.hash`); got != hash {
		t.Errorf("after the reload: hash %q, want %q", got, hash)
	}
	if user := text(t, b, ".msg.user"); !strings.Contains(user, "Combien de jours") {
		t.Errorf("after the reload the question reads %q", user)
	}
	if n := eval[int](t, b, `document.querySelectorAll(".approval").length`); n != 1 {
		t.Errorf("%d approval cards after the reload, want 1", n)
	}

	// Approve, with "remember"; the turn goes on to the answer.
	b.do(t, "approve and see the answer",
		click(".approval .remember"),
		click(".approval button.approve"),
		chromedp.WaitVisible(chromedp.CSS(`.approval.resolved.allowed`)),
		chromedp.WaitVisible(chromedp.CSS(`.round.answer button.cite[data-alias="c1"]`)))
	if status := text(t, b, ".approval .approval-status"); !strings.Contains(status, "Autorisé") {
		t.Errorf("card status %q after approving", status)
	}
	if answer := text(t, b, ".round.answer .text"); answer != "Trente jours ouvrables par an [c1]." {
		t.Errorf("answer %q", answer)
	}
	got, err := os.ReadFile(filepath.Join(ts.root, "notes", "conges.txt"))
	if err != nil || string(got) != "30 jours" {
		t.Errorf("the approved write: %q, %v", got, err)
	}

	// The tool calls as a timeline: name, arguments, duration, result.
	type call struct {
		Name, Args, Dur, Preview, Result string
		Pending                          bool
	}
	calls := eval[[]call](t, b, `[...document.querySelectorAll(".timeline li.call[data-call]")].map(li => ({
		Name: li.querySelector(".name").textContent, Args: li.querySelector(".args pre").textContent,
		Dur: li.querySelector(".dur").textContent, Preview: li.querySelector(".result .preview").textContent,
		Result: li.querySelector(".result pre").textContent,
		Pending: li.classList.contains("pending")}))`)
	if len(calls) != 2 || calls[0].Name != "write_file" || calls[1].Name != "search_knowledge" {
		t.Fatalf("timeline %+v, want write_file then search_knowledge", calls)
	}
	for _, c := range calls {
		if c.Pending || !regexp.MustCompile(`\d+ ms`).MatchString(c.Dur) || c.Preview == "" {
			t.Errorf("timeline item %+v: want a duration and a result preview", c)
		}
	}
	if !strings.Contains(calls[0].Args, `"path": "notes/conges.txt"`) || !strings.Contains(calls[1].Result, `id="c1"`) ||
		!strings.Contains(calls[1].Result, "30 jours ouvrables") {
		t.Errorf("timeline arguments %q, search result %q", calls[0].Args, calls[1].Result)
	}
	type folded struct {
		Open, Hidden bool
		Text         string
	}
	r := eval[folded](t, b, `(() => { const d = document.querySelector(".round.answer details.reasoning");
		return {Open: d.open, Hidden: d.hidden, Text: d.querySelector(".reasoning-text").textContent}; })()`)
	if r.Open || r.Hidden || r.Text != "Le passage c1 répond." {
		t.Errorf("reasoning %+v, want it folded and there", r)
	}

	// The citation opens its passage and its document.
	b.do(t, "open the citation",
		click(`.round.answer .text button.cite[data-alias="c1"]`),
		chromedp.WaitVisible(chromedp.ID("citation")),
		chromedp.WaitVisible(chromedp.CSS("#citation-passage pre.cited")))
	passage, doc := text(t, b, "#citation-passage pre.cited"), text(t, b, "#citation-doc")
	if !strings.Contains(passage, "30 jours ouvrables") || !strings.Contains(doc, "Congés payés") || !strings.Contains(doc, "conges.md") {
		t.Errorf("citation panel: passage %q, document %q", passage, doc)
	}

	// The session is in the list.
	b.do(t, "see the sessions list",
		chromedp.Navigate(ts.http.URL+"/#/sessions"),
		chromedp.WaitVisible(chromedp.CSS(`#sessions-list li[data-session="`+id+`"]`)))
	if n := len(ts.model.Requests()); n != 3 {
		t.Errorf("the model saw %d requests, want 3", n)
	}
	// The 404 is the page asking, as it must, whether a new session is
	// stored yet.
	b.noProblems(t, "404", "status of 401")
}

// The strings of both languages have the same keys, every key the page
// uses exists, and switching the language relabels the page and stays
// after a reload.
func TestPageFrenchAndEnglish(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	b := newBrowser(t)
	b.do(t, "load the page", chromedp.Navigate(ts.http.URL+"/"), chromedp.WaitVisible(chromedp.ID("signin-key")))
	missing := eval[[]string](t, b, `(() => {
		const S = window.MOTEUR_STRINGS, out = [];
		for (const [a, b] of [["fr", "en"], ["en", "fr"]]) for (const k of Object.keys(S[a])) if (!(k in S[b])) out.push(b + " lacks " + k);
		for (const el of document.querySelectorAll("[data-i18n]")) if (!(el.dataset.i18n in S.fr)) out.push("no string " + el.dataset.i18n);
		return out;
	})()`)
	if len(missing) > 0 {
		t.Errorf("strings: %v", missing)
	}
	setLang := func(l string) string {
		t.Helper()
		b.do(t, "choose "+l, chromedp.SetValue(chromedp.ID("lang"), l),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("lang").dispatchEvent(new Event("change"))`))
		return text(t, b, `#signin-form button[type=submit]`)
	}
	if fr, en := setLang("fr"), setLang("en"); fr != "Se connecter" || en != "Sign in" {
		t.Errorf("sign-in button: %q in French, %q in English", fr, en)
	}
	b.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("signin-key")))
	if lang := eval[string](t, b, `document.documentElement.lang`); lang != "en" {
		t.Errorf("html lang after a reload: %q, want en", lang)
	}
	b.noProblems(t)
}

// The other pages: a knowledge base is created and filled through the
// page (the upload reports its progress), an agent is created from a
// preset and edited, a write is denied with a reason, and the session is
// rewound to a point.
func TestPageBasesAgentsDenyRewind(t *testing.T) {
	ts := newTestServer(t, testOptions{mode: "confirm"},
		openaitest.Answer("Premier."),
		openaitest.Calls("call_w", "write_file", `{"path":"refus.txt","content":"non"}`),
		openaitest.Answer("D'accord, je n'écris rien."))
	b := newBrowser(t)
	b.do(t, "sign in",
		chromedp.Navigate(ts.http.URL+"/#/kb"),
		chromedp.SetValue(chromedp.ID("lang"), "fr"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("lang").dispatchEvent(new Event("change"))`),
		chromedp.SendKeys(chromedp.ID("signin-key"), ts.key),
		click(`#signin-form button[type=submit]`),
		chromedp.WaitVisible(chromedp.ID("kb-name")))

	// A base, created and filled from the page.
	dir := t.TempDir()
	var files []string
	for _, d := range pageBaseDocs {
		p := filepath.Join(dir, d.Name)
		writeFile(t, p, d.Body)
		files = append(files, p)
	}
	b.do(t, "create a base and upload",
		chromedp.SendKeys(chromedp.ID("kb-name"), "docs-rh"),
		chromedp.SendKeys(chromedp.ID("kb-description"), "Procédures RH"),
		click(`#kb-create button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#kb-list li.active[data-base="docs-rh"]`)),
		chromedp.WaitVisible(chromedp.ID("kb-files")),
		chromedp.SetUploadFiles(chromedp.ID("kb-files"), files),
		click(`#kb-upload button[type=submit]`),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#kb-docs li").length === 2`))
	type upload struct {
		Status        string
		Value, Events int
		Results       []string
		Docs          []string
	}
	up := eval[upload](t, b, `({Status: document.getElementById("kb-upload-status").textContent,
		Value: document.getElementById("kb-progress").value, Events: Number(document.getElementById("kb-progress").dataset.events),
		Results: [...document.querySelectorAll("#kb-upload-results li")].map(li => li.textContent),
		Docs: [...document.querySelectorAll("#kb-docs li")].map(li => li.textContent)})`)
	if up.Status != "Envoi terminé." || up.Value != 100 || up.Events < 1 || len(up.Results) != 2 ||
		!strings.Contains(strings.Join(up.Docs, "|"), "Congés payés") || !strings.Contains(strings.Join(up.Docs, "|"), "Télétravail") {
		t.Errorf("upload as the page shows it: %+v", up)
	}
	for _, r := range up.Results {
		if !strings.Contains(r, "added") {
			t.Errorf("upload result %q, want the file added", r)
		}
	}

	// An agent from the rag-qa preset, limited to the base, then edited.
	b.do(t, "create an agent from a preset",
		chromedp.Navigate(ts.http.URL+"/#/agents"),
		chromedp.WaitReady(chromedp.CSS(`#agent-preset option[value="rag-qa"]`)),
		chromedp.SetValue(chromedp.ID("agent-preset"), "rag-qa"),
		clickID("agent-new"),
		chromedp.WaitVisible(chromedp.ID("agent-form")),
		chromedp.SendKeys(chromedp.CSS(`#agent-form input[name=name]`), "Assistant RH"),
		chromedp.SetValue(chromedp.CSS(`#agent-form select[name=kb_selection_mode]`), "selected"),
		click(`#agent-form-bases input[value="docs-rh"]`),
		click(`#agent-form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#agents-list li .title`)),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("#agents-list li .title")].some(e => e.textContent === "Assistant RH")`))
	stored, err := ts.agents.List(t.Context())
	if err != nil || len(stored) != 1 {
		t.Fatalf("stored agents %+v, %v; want the one made in the page", stored, err)
	}
	a := stored[0]
	if a.Name != "Assistant RH" || a.Config.AgentType != "rag-qa" || a.Config.AgentMode != "smart-reasoning" ||
		a.Config.KBSelectionMode != "selected" || !slices.Equal(a.Config.KnowledgeBases, []string{"docs-rh"}) {
		t.Errorf("stored agent %+v", a)
	}
	b.do(t, "edit the agent",
		click(`#agents-list li[data-agent="`+a.ID+`"] button.edit`),
		chromedp.WaitVisible(chromedp.ID("agent-form")),
		chromedp.SetValue(chromedp.CSS(`#agent-form input[name=temperature]`), "0.2"),
		chromedp.SetValue(chromedp.CSS(`#agent-form select[name=access_level]`), "confirm"),
		click(`#agent-form button[type=submit]`),
		chromedp.WaitNotVisible(chromedp.ID("agent-form")))
	if a, err = ts.agents.Get(t.Context(), a.ID); err != nil || a.Config.Temperature != 0.2 || a.Config.AccessLevel != "confirm" ||
		a.Config.AgentType != "rag-qa" || !slices.Equal(a.Config.KnowledgeBases, []string{"docs-rh"}) {
		t.Errorf("edited agent %+v, %v: want temperature 0.2, confirm, the rest kept", a, err)
	}

	// Two questions; the second one's write is denied with a reason.
	b.do(t, "ask twice, deny the write",
		chromedp.Navigate(ts.http.URL+"/#/chat"),
		chromedp.WaitVisible(chromedp.ID("chat-input")),
		chromedp.WaitReady(chromedp.CSS(`#chat-agent option[value="`+a.ID+`"]`)),
		chromedp.WaitEnabled(chromedp.ID("chat-send")),
		chromedp.SendKeys(chromedp.ID("chat-input"), "Première question"),
		clickID("chat-send"),
		chromedp.WaitVisible(chromedp.CSS(`.round.answer`)),
		chromedp.WaitEnabled(chromedp.ID("chat-send")),
		chromedp.SendKeys(chromedp.ID("chat-input"), "Deuxième question"),
		clickID("chat-send"),
		chromedp.WaitVisible(chromedp.CSS(`.approval:not(.resolved) button.deny`)),
		chromedp.SendKeys(chromedp.CSS(".approval input.reason"), "pas maintenant"),
		click(".approval button.deny"),
		chromedp.WaitVisible(chromedp.CSS(".approval.resolved.denied")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".round.answer").length === 2`),
		chromedp.WaitEnabled(chromedp.ID("chat-rewind")))
	if st := text(t, b, ".approval .approval-status"); !strings.Contains(st, "Refusé") || !strings.Contains(st, "pas maintenant") {
		t.Errorf("denied card status %q", st)
	}
	if _, err := os.Stat(filepath.Join(ts.root, "refus.txt")); !os.IsNotExist(err) {
		t.Errorf("the denied write happened: %v", err)
	}
	reqs := ts.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model saw %d requests, want 3", len(reqs))
	}
	sawReason := false
	for _, m := range reqs[2].Messages {
		sawReason = sawReason || m.Role == "tool" && strings.Contains(m.Content, "pas maintenant")
	}
	if !sawReason {
		t.Errorf("the model was not told the reason of the denial: %+v", reqs[2].Messages)
	}

	// Rewind the conversation to the second question.
	b.do(t, "rewind",
		clickID("chat-rewind"),
		chromedp.WaitVisible(chromedp.CSS("#rewind-points li button")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#rewind-points li").length === 2`),
		chromedp.SetValue(chromedp.ID("rewind-mode"), "conversation"),
		click("#rewind-points li:nth-child(2) button"),
		chromedp.Poll[chromedp.Void](`document.getElementById("rewind-status").textContent.startsWith("Retour au point")`),
		clickID("rewind-close"),
		chromedp.WaitVisible(chromedp.CSS(".notice.info")),
		chromedp.WaitVisible(chromedp.CSS(".msg.user.undone")))
	type rewound struct {
		Undone, Kept []string
		Input        string
	}
	rw := eval[rewound](t, b, `({Undone: [...document.querySelectorAll(".msg.user.undone")].map(e => e.textContent),
		Kept: [...document.querySelectorAll(".msg.user:not(.undone)")].map(e => e.textContent),
		Input: document.getElementById("chat-input").value})`)
	if !slices.Equal(rw.Undone, []string{"Deuxième question"}) || !slices.Equal(rw.Kept, []string{"Première question"}) ||
		rw.Input != "Deuxième question" {
		t.Errorf("after the rewind: %+v; want the second question undone and back in the input", rw)
	}
	b.noProblems(t, "404")
}

// A quick answer: the retrieval shows in the timeline and the answer's
// citation opens its passage.
// retrievedCount is the count of passages a retrieval shows in the timeline.
var retrievedCount = regexp.MustCompile(`— [1-9][0-9]* passage`)

func TestPageQuickAnswer(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("Trente jours ouvrables [c1]."))
	addPageBase(t, ts, "manuel-rh")
	b := newBrowser(t)
	b.do(t, "ask a quick question",
		chromedp.Navigate(ts.http.URL+"/"),
		chromedp.SendKeys(chromedp.ID("signin-key"), ts.key),
		click(`#signin-form button[type=submit]`),
		chromedp.WaitReady(chromedp.CSS(`#chat-bases input[value="manuel-rh"]`)),
		click("details.bases summary"),
		click(`#chat-bases input[value="manuel-rh"]`),
		clickID("chat-mode-quick"),
		chromedp.WaitEnabled(chromedp.ID("chat-send")),
		chromedp.SendKeys(chromedp.ID("chat-input"), "Combien de jours de congés payés par an ?"),
		clickID("chat-send"),
		chromedp.WaitVisible(chromedp.CSS(`.round.answer button.cite[data-alias="c1"]`)),
		click(`.round.answer .text button.cite[data-alias="c1"]`),
		chromedp.WaitVisible(chromedp.CSS("#citation-passage pre.cited")))
	if got := text(t, b, ".timeline .retrieved"); !retrievedCount.MatchString(got) || !strings.Contains(got, "congés") {
		t.Errorf("retrieval in the timeline: %q", got)
	}
	if p := text(t, b, "#citation-passage pre.cited"); !strings.Contains(p, "30 jours ouvrables") {
		t.Errorf("cited passage %q", p)
	}
	if reqs := ts.model.Requests(); len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Errorf("the quick answer made %d requests (tools %v), want one without tools", len(reqs), reqs)
	}
	b.noProblems(t, "404")
}

func TestPageHeaderParsing(t *testing.T) {
	for _, c := range []struct {
		header string
		gzip   bool
	}{
		{"gzip", true}, {"deflate, gzip;q=0.8", true}, {"GZIP", true}, {"gzip;q=0", false},
		{"gzip; q=0.000", false}, {"br", false}, {"", false}, {"xgzip", false},
	} {
		if got := acceptsGzip(c.header); got != c.gzip {
			t.Errorf("acceptsGzip(%q) = %v", c.header, got)
		}
	}
	for _, c := range []struct {
		header string
		match  bool
	}{
		{`"abc"`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {`*`, true}, {`"abcd"`, false}, {``, false},
	} {
		if got := etagMatch(c.header, `"abc"`); got != c.match {
			t.Errorf("etagMatch(%q) = %v", c.header, got)
		}
	}
}

// Stop ends a turn whose model stalls: the streamed start of the answer
// stays, the turn ends cancelled, and the page can ask again.
func TestPageStop(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Stall(openaitest.Chunk(`{"role":"assistant"}`, ""), openaitest.Text("Je commence à répond")))
	b := newBrowser(t)
	b.do(t, "ask, then stop",
		chromedp.Navigate(ts.http.URL+"/"),
		chromedp.SetValue(chromedp.ID("lang"), "fr"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("lang").dispatchEvent(new Event("change"))`),
		chromedp.SendKeys(chromedp.ID("signin-key"), ts.key),
		click(`#signin-form button[type=submit]`),
		chromedp.WaitVisible(chromedp.ID("chat-input")),
		chromedp.WaitEnabled(chromedp.ID("chat-send")),
		chromedp.SendKeys(chromedp.ID("chat-input"), "Une longue réponse, s'il te plaît"),
		clickID("chat-send"),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll(".round .text")].some(e => e.textContent.includes("Je commence"))`),
		chromedp.WaitVisible(chromedp.ID("chat-stop")),
		clickID("chat-stop"),
		chromedp.WaitVisible(chromedp.CSS(".notice.warn")),
		chromedp.WaitNotVisible(chromedp.ID("chat-stop")),
		chromedp.WaitEnabled(chromedp.ID("chat-send")))
	if n := text(t, b, ".notice.warn"); n != "Tour terminé : cancelled" {
		t.Errorf("notice %q, want the turn ended cancelled", n)
	}
	b.noProblems(t, "404")
}
