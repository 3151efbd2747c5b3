package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
)

// waitLimit bounds how long a test waits for something that must happen; it
// is a failure deadline, never a synchronisation.
const waitLimit = 5 * time.Second

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func persisted(seq uint64, text string) event.Event {
	return event.Event{Seq: seq, Type: event.UserMessage, SessionID: "s1", Time: t0.Add(time.Duration(seq) * time.Second),
		Payload: event.UserMessagePayload{Text: text}}
}

func delta(text string) event.Event {
	return event.Event{Type: event.AssistantDelta, SessionID: "s1", Time: t0, Ephemeral: true,
		Payload: event.DeltaPayload{Text: text, Round: 1}}
}

// serveEvents mounts h on the route it is made for; done is closed each
// time a request's handler returns.
func serveEvents(t *testing.T, h http.Handler) (base string, done <-chan struct{}) {
	t.Helper()
	d := make(chan struct{}, 16)
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/sessions/{id}/events", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { d <- struct{}{} }()
		h.ServeHTTP(w, r)
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/api/v1/sessions/", d
}

func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func sendLive(t *testing.T, f *fakeSub, ev event.Event) {
	t.Helper()
	select {
	case f.live <- ev:
	case <-time.After(waitLimit):
		t.Fatalf("timed out handing live event %s to the subscription", ev.Type)
	}
}

func checkFrame(t *testing.T, got frame, ev event.Event) {
	t.Helper()
	if ev.Ephemeral {
		if got.hasID {
			t.Errorf("ephemeral %s sent with id %q: it must carry none", ev.Type, got.id)
		}
	} else if want := fmt.Sprint(ev.Seq); !got.hasID || got.id != want {
		t.Errorf("%s: id %q (present %v), want %q", ev.Type, got.id, got.hasID, want)
	}
	if got.event != string(ev.Type) {
		t.Errorf("event %q, want %q", got.event, ev.Type)
	}
	if len(got.data) != 1 || got.data[0] != jsonLine(t, ev) {
		t.Errorf("data %q,\nwant the --json line %q", got.data, jsonLine(t, ev))
	}
}

func TestSessionEventsFraming(t *testing.T) {
	stored := persisted(1, "compare <a> & <b>\nline two")
	ephemeral := delta("Hel")
	second := event.Event{Seq: 2, Type: event.Warning, SessionID: "s1", Time: t0,
		Payload: event.WarningPayload{Kind: "k", Message: "m"}}
	sub := newFakeSub(stored)
	base, _ := serveEvents(t, NewSessionEvents(sub, EventsConfig{KeepAlive: -1}))
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp, rd := openStream(t, ctx, base+"s1/events", "")
	defer resp.Body.Close()
	if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control %q, want no-cache", cc)
	}
	call := recv(t, sub.calls, "the subscription")
	if call.id != "s1" || call.after != 0 {
		t.Errorf("subscribed to %q after %d, want s1 after 0", call.id, call.after)
	}
	f := rd.mustNext(t)
	checkFrame(t, f, stored)
	if got, err := event.Decode([]byte(f.data[0])); err != nil || got.Payload != stored.Payload || got.Seq != 1 {
		t.Errorf("data decodes to %+v, %v; want the stored event", got, err)
	}
	sendLive(t, sub, ephemeral)
	checkFrame(t, rd.mustNext(t), ephemeral)
	sendLive(t, sub, second)
	checkFrame(t, rd.mustNext(t), second)
}

func TestSessionEventsResumeAfterCutConnection(t *testing.T) {
	sub := newFakeSub(persisted(1, "one"), persisted(2, "two"), persisted(3, "three"))
	base, done := serveEvents(t, NewSessionEvents(sub, EventsConfig{KeepAlive: -1}))
	seen := map[uint64]int{}

	// First connection: two events, then the connection is cut.
	ctx1, cut := context.WithTimeout(context.Background(), waitLimit)
	defer cut()
	resp1, rd1 := openStream(t, ctx1, base+"s1/events", "")
	first := recv(t, sub.calls, "the first subscription")
	lastID := ""
	for range 2 {
		f := rd1.mustNext(t)
		var ev event.Event
		if err := json.Unmarshal([]byte(f.data[0]), &ev); err != nil {
			t.Fatal(err)
		}
		seen[ev.Seq]++
		lastID = f.id
	}
	cut()
	resp1.Body.Close()
	recv(t, first.ctx.Done(), "the first subscription to end")
	recv(t, done, "the first handler to return")

	// Events happen while the client is away.
	sub.store(persisted(4, "four"), persisted(5, "five"))

	// The client comes back with the last id it got, on the URL it first
	// used (?after=0): the header wins.
	ctx2, cancel2 := context.WithTimeout(context.Background(), waitLimit)
	defer cancel2()
	resp2, rd2 := openStream(t, ctx2, base+"s1/events?after=0", lastID)
	defer resp2.Body.Close()
	if second := recv(t, sub.calls, "the second subscription"); second.after != 2 {
		t.Fatalf("resumed after %d, want 2 (the Last-Event-ID)", second.after)
	}
	for range 3 {
		f := rd2.mustNext(t)
		var ev event.Event
		if err := json.Unmarshal([]byte(f.data[0]), &ev); err != nil {
			t.Fatal(err)
		}
		seen[ev.Seq]++
	}
	for seq := uint64(1); seq <= 5; seq++ {
		if seen[seq] != 1 {
			t.Errorf("seq %d received %d times, want once: %v", seq, seen[seq], seen)
		}
	}
}

func TestSessionEventsClientDisconnectEndsHandler(t *testing.T) {
	sub := newFakeSub(persisted(1, "one"))
	base, done := serveEvents(t, NewSessionEvents(sub, EventsConfig{KeepAlive: -1}))
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp, rd := openStream(t, ctx, base+"s1/events", "")
	call := recv(t, sub.calls, "the subscription")
	rd.mustNext(t) // the stream is flowing
	if call.ctx.Err() != nil {
		t.Fatal("subscription cancelled before the client left")
	}
	cancel()
	resp.Body.Close()
	recv(t, call.ctx.Done(), "the subscription's context to be cancelled")
	recv(t, done, "the handler to return")
}

func TestSessionEventsEndsWithSubscription(t *testing.T) {
	sub := newFakeSub(persisted(1, "one"))
	base, done := serveEvents(t, NewSessionEvents(sub, EventsConfig{KeepAlive: -1}))
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp, rd := openStream(t, ctx, base+"s1/events", "")
	defer resp.Body.Close()
	rd.mustNext(t)
	close(sub.live) // the subscription ends: the fake closes its channel
	if f, err := rd.next(t); err != io.EOF {
		t.Fatalf("after the channel closed: frame %+v, err %v; want the end of the stream", f, err)
	}
	recv(t, done, "the handler to return")
}

type fakeTicker struct {
	c       chan time.Time
	stopped chan struct{}
}

func (f *fakeTicker) C() <-chan time.Time { return f.c }
func (f *fakeTicker) Stop()               { close(f.stopped) }

func TestSessionEventsKeepAlive(t *testing.T) {
	tk := &fakeTicker{c: make(chan time.Time), stopped: make(chan struct{})}
	asked := make(chan time.Duration, 1)
	sub := newFakeSub(persisted(1, "one"))
	h := NewSessionEvents(sub, EventsConfig{KeepAlive: 7 * time.Second,
		NewTicker: func(d time.Duration) Ticker { asked <- d; return tk }})
	base, done := serveEvents(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp, rd := openStream(t, ctx, base+"s1/events", "")
	if d := recv(t, asked, "the keep-alive ticker"); d != 7*time.Second {
		t.Errorf("ticker of %v, want the configured 7s", d)
	}
	checkFrame(t, rd.mustNext(t), persisted(1, "one"))
	select {
	case tk.c <- t0:
	case <-time.After(waitLimit):
		t.Fatal("the handler does not read its ticker")
	}
	if f := rd.mustNext(t); f.comment != "keep-alive" || f.hasID || f.event != "" || f.data != nil {
		t.Errorf("after a tick: %+v, want a bare keep-alive comment", f)
	}
	sendLive(t, sub, persisted(2, "two"))
	checkFrame(t, rd.mustNext(t), persisted(2, "two"))
	cancel()
	resp.Body.Close()
	recv(t, done, "the handler to return")
	recv(t, tk.stopped, "the ticker to be stopped")
}

func TestSessionEventsDefaultKeepAlive(t *testing.T) {
	asked := make(chan time.Duration, 1)
	tk := &fakeTicker{c: make(chan time.Time), stopped: make(chan struct{})}
	sub := newFakeSub(persisted(1, "one"))
	base, _ := serveEvents(t, NewSessionEvents(sub, EventsConfig{NewTicker: func(d time.Duration) Ticker { asked <- d; return tk }}))
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp, _ := openStream(t, ctx, base+"s1/events", "")
	defer resp.Body.Close()
	if d := recv(t, asked, "the keep-alive ticker"); d != DefaultKeepAlive {
		t.Errorf("ticker of %v, want DefaultKeepAlive %v", d, DefaultKeepAlive)
	}
}

// apiError reads a JSON error response strictly.
func apiError(t *testing.T, resp *http.Response) errorDetail {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("error Content-Type %q, want application/json", ct)
	}
	dec := json.NewDecoder(resp.Body)
	dec.DisallowUnknownFields()
	var body errorBody
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("error body: %v", err)
	}
	if body.Error.Code == "" || body.Error.Message == "" {
		t.Errorf("error body %+v: code and message wanted", body)
	}
	return body.Error
}

func TestSessionEventsErrors(t *testing.T) {
	cases := []struct {
		name, query, lastID string
		subErr              error
		status              int
		code, inMessage     string
		subscribes          bool
	}{
		{name: "header not a number", lastID: "abc", status: 400, code: CodeBadAfter, inMessage: `Last-Event-ID "abc"`},
		{name: "header negative", lastID: "-1", status: 400, code: CodeBadAfter, inMessage: "not a sequence number"},
		{name: "header fraction", lastID: "1.5", status: 400, code: CodeBadAfter},
		{name: "header out of range", lastID: "18446744073709551616", status: 400, code: CodeBadAfter, inMessage: "out of range"},
		{name: "query not a number", query: "?after=x", status: 400, code: CodeBadAfter, inMessage: `after "x"`},
		{name: "query empty", query: "?after=", status: 400, code: CodeBadAfter},
		{name: "query twice", query: "?after=1&after=2", status: 400, code: CodeBadAfter, inMessage: "2 times"},
		{name: "query malformed", query: "?after=%zz", status: 400, code: CodeBadRequest},
		{name: "unknown session", subErr: fmt.Errorf("%w: s1", engine.ErrUnknownSession), status: 404,
			code: CodeUnknownSession, inMessage: "s1", subscribes: true},
		{name: "after the end", query: "?after=9", subErr: fmt.Errorf("session s1: follow after seq 9: %w (it ends at seq 5)", engine.ErrFollowAfterEnd),
			status: 409, code: CodeAfterBeyondEnd, inMessage: "ends at seq 5", subscribes: true},
		{name: "other failure", subErr: errors.New("open /secret/path: permission denied"), status: 500,
			code: CodeInternal, inMessage: "internal error", subscribes: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := newFakeSub()
			sub.err = c.subErr
			base, _ := serveEvents(t, NewSessionEvents(sub, EventsConfig{KeepAlive: -1}))
			req, _ := http.NewRequest(http.MethodGet, base+"s1/events"+c.query, nil)
			if c.lastID != "" {
				req.Header.Set("Last-Event-ID", c.lastID)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != c.status {
				// Fatal: a stream opened by mistake would never end.
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			e := apiError(t, resp)
			if e.Code != c.code || !strings.Contains(e.Message, c.inMessage) {
				t.Errorf("error %+v, want code %s and a message with %q", e, c.code, c.inMessage)
			}
			if strings.Contains(e.Message, "/secret") {
				t.Errorf("message %q leaks the cause of an internal error", e.Message)
			}
			if got := len(sub.calls) > 0; got != c.subscribes {
				t.Errorf("subscribed: %v, want %v", got, c.subscribes)
			}
		})
	}
}

// noFlushWriter hides the recorder's Flush.
type noFlushWriter struct{ w http.ResponseWriter }

func (n noFlushWriter) Header() http.Header         { return n.w.Header() }
func (n noFlushWriter) Write(b []byte) (int, error) { return n.w.Write(b) }
func (n noFlushWriter) WriteHeader(s int)           { n.w.WriteHeader(s) }

func TestSessionEventsNeedsFlusher(t *testing.T) {
	sub := newFakeSub(persisted(1, "one"))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/sessions/s1/events", nil)
	req.SetPathValue("id", "s1")
	NewSessionEvents(sub, EventsConfig{KeepAlive: -1}).ServeHTTP(noFlushWriter{rec}, req)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"internal"`) {
		t.Errorf("without a Flusher: %d %s, want a 500 JSON error", rec.Code, rec.Body)
	}
	// With one, the same request streams (the handler was able to run).
	rec = httptest.NewRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	go func() { // cancel once subscribed (or at the deadline): Fatal is for the test's goroutine
		select {
		case <-sub.calls:
		case <-time.After(waitLimit):
		}
		cancel()
	}()
	NewSessionEvents(sub, EventsConfig{KeepAlive: -1}).ServeHTTP(rec, req.WithContext(ctx))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("with a Flusher: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}
