package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/moteur/moteur/event"
)

// DefaultKeepAlive is the default interval between keep-alive comments on
// an event stream: short enough for proxies that cut idle connections
// after 30 or 60 seconds.
const DefaultKeepAlive = 15 * time.Second

// errNoFlush: the ResponseWriter cannot flush, so it cannot stream.
var errNoFlush = errors.New("server: response writer cannot flush: no event stream possible")

// sseWriter writes Server-Sent Events to one response. Each write is
// flushed: an event reaches the client when it happens, not when a buffer
// fills.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer // one frame
	js  bytes.Buffer // one event's JSON
	enc *json.Encoder
}

// newSSEWriter returns a writer for w, or errNoFlush. Nothing is written
// yet: an error can still be sent as JSON.
func newSSEWriter(w http.ResponseWriter) (*sseWriter, error) {
	if !canFlush(w) {
		return nil, errNoFlush
	}
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	s.enc = json.NewEncoder(&s.js)
	// As `moteur run --json` (cmd/moteur/jsonout.go): answers and file
	// contents are full of <, > and &.
	s.enc.SetEscapeHTML(false)
	return s, nil
}

// canFlush looks for an http.Flusher through the wrappers that unwrap, as
// http.ResponseController does.
func canFlush(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case http.Flusher:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}

// start sends the stream's headers.
func (s *sseWriter) start() error {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	// Reverse proxies (nginx) buffer responses unless told not to.
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	return s.flush()
}

// event sends ev: `id: SEQ` for a persisted event only (an ephemeral one
// carries none, so the client's Last-Event-ID stays the last persisted
// seq), `event: TYPE`, `data: JSON`, a blank line.
func (s *sseWriter) event(ev event.Event) error {
	if strings.ContainsAny(string(ev.Type), "\r\n") {
		return fmt.Errorf("server: event %d: type %q holds a line break", ev.Seq, ev.Type)
	}
	s.js.Reset()
	if err := s.enc.Encode(ev); err != nil {
		return fmt.Errorf("server: encode event %d (%s): %w", ev.Seq, ev.Type, err)
	}
	s.buf.Reset()
	if !ev.Ephemeral && ev.Seq > 0 {
		s.buf.WriteString("id: ")
		s.buf.WriteString(strconv.FormatUint(ev.Seq, 10))
		s.buf.WriteByte('\n')
	}
	if ev.Type != "" {
		s.buf.WriteString("event: ")
		s.buf.WriteString(string(ev.Type))
		s.buf.WriteByte('\n')
	}
	writeData(&s.buf, bytes.TrimSuffix(s.js.Bytes(), []byte{'\n'}))
	s.buf.WriteByte('\n')
	return s.send()
}

// writeData writes data as `data:` lines. encoding/json never puts a raw
// line break in its output (it escapes them in strings and compacts raw
// messages), so this is one line; were there one, it could only be JSON
// whitespace, and one `data:` line per line keeps the frame intact: the
// client joins them with "\n", which is the same JSON.
func writeData(b *bytes.Buffer, data []byte) {
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		b.WriteString("data: ")
		b.Write(data[:i])
		b.WriteByte('\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteByte('\n')
}

// errorEvent sends `event: error` with the JSON of an API error: what
// ended a stream that could not end with its last event.
func (s *sseWriter) errorEvent(ae *Error) error {
	s.js.Reset()
	if err := s.enc.Encode(errorBody{Error: errorDetail{Code: ae.Code, Message: ae.Message}}); err != nil {
		return fmt.Errorf("server: encode error event: %w", err)
	}
	s.buf.Reset()
	s.buf.WriteString("event: error\n")
	writeData(&s.buf, bytes.TrimSuffix(s.js.Bytes(), []byte{'\n'}))
	s.buf.WriteByte('\n')
	return s.send()
}

// comment sends a comment line, which clients ignore: a keep-alive.
func (s *sseWriter) comment(text string) error {
	s.buf.Reset()
	s.buf.WriteString(": ")
	s.buf.WriteString(strings.NewReplacer("\r", " ", "\n", " ").Replace(text))
	s.buf.WriteString("\n\n")
	return s.send()
}

func (s *sseWriter) send() error {
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return fmt.Errorf("server: write event stream: %w", err)
	}
	return s.flush()
}

func (s *sseWriter) flush() error {
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("server: flush event stream: %w", err)
	}
	return nil
}

// afterSeq is the seq a stream starts after: the Last-Event-ID header (sent
// by a reconnecting EventSource, which keeps the URL it first used, so the
// header wins over the query) or the query's `after`, else 0. A bad value
// is a 400 *Error.
func afterSeq(r *http.Request) (uint64, error) {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		return parseSeq("Last-Event-ID", v)
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return 0, apiErrorf(http.StatusBadRequest, CodeBadRequest, "query string: %v", err)
	}
	vs, ok := q["after"]
	switch {
	case !ok:
		return 0, nil
	case len(vs) > 1:
		return 0, apiErrorf(http.StatusBadRequest, CodeBadAfter, "query parameter after: given %d times, want once", len(vs))
	}
	return parseSeq("query parameter after", vs[0])
}

// parseSeq parses a seq: a decimal integer from 0 to MaxUint64, digits only.
func parseSeq(name, s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		why := "not a sequence number"
		if errors.Is(err, strconv.ErrRange) {
			why = "out of range"
		}
		return 0, apiErrorf(http.StatusBadRequest, CodeBadAfter,
			"%s %q: %s (want a decimal integer from 0 to %d)", name, clip(s), why, uint64(math.MaxUint64))
	}
	return n, nil
}

// clip bounds client input quoted in a message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
