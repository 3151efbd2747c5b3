package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
)

// The engine's follower is a Subscriber once adapted.
var _ = func(e *engine.Engine) Subscriber { return SubscriberFunc(e.SubscribeSession) }

// frame is one SSE frame as a client reads it off the wire.
type frame struct {
	id      string
	hasID   bool
	event   string
	data    []string // one per data: line
	comment string
}

// sseReader parses a stream the way the SSE spec does, keeping what a
// plain EventSource would drop (whether an id line was present, comments).
type sseReader struct{ br *bufio.Reader }

func (s *sseReader) next(t *testing.T) (frame, error) {
	t.Helper()
	var f frame
	seen := false
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			return f, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if seen {
				return f, nil
			}
			continue
		}
		seen = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			f.comment = value
		case "id":
			f.id, f.hasID = value, true
		case "event":
			f.event = value
		case "data":
			f.data = append(f.data, value)
		default:
			t.Fatalf("unexpected field %q in line %q", field, line)
		}
	}
}

// mustNext reads a frame or fails.
func (s *sseReader) mustNext(t *testing.T) frame {
	t.Helper()
	f, err := s.next(t)
	if err != nil {
		t.Fatalf("read frame: %v", err)
	}
	return f
}

// openStream GETs url with an optional Last-Event-ID and checks the
// response is an event stream.
func openStream(t *testing.T, ctx context.Context, url, lastID string) (*http.Response, *sseReader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET %s: status %d: %s", url, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	return resp, &sseReader{br: bufio.NewReader(resp.Body)}
}

// jsonLine is an event exactly as `moteur run --json` prints it, without
// the final newline (cmd/moteur/jsonout.go's encoder settings).
func jsonLine(t *testing.T, ev event.Event) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// subscription is one call to the fake subscriber.
type subscription struct {
	ctx   context.Context
	id    string
	after uint64
}

// fakeSub is a session store in a slice: Subscribe sends the stored events
// after `after`, then what the test sends on live, until ctx ends.
type fakeSub struct {
	mu     sync.Mutex
	stored []event.Event
	err    error
	live   chan event.Event
	calls  chan subscription
}

func newFakeSub(stored ...event.Event) *fakeSub {
	return &fakeSub{stored: stored, live: make(chan event.Event), calls: make(chan subscription, 16)}
}

func (f *fakeSub) store(evs ...event.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stored = append(f.stored, evs...)
}

func (f *fakeSub) Subscribe(ctx context.Context, id string, after uint64) (<-chan event.Event, error) {
	f.calls <- subscription{ctx: ctx, id: id, after: after}
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	var backlog []event.Event
	for _, ev := range f.stored {
		if ev.Seq > after {
			backlog = append(backlog, ev)
		}
	}
	f.mu.Unlock()
	out := make(chan event.Event)
	go func() {
		defer close(out)
		for _, ev := range backlog {
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
		for {
			select {
			case ev, ok := <-f.live:
				if !ok {
					return
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
