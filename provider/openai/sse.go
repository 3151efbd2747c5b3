package openai

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes bounds one event (all its lines together). Real chunks are a
// few hundred bytes and a whole non-streamed answer a few hundred KiB; the
// bound only stops a broken or hostile server from exhausting memory.
const maxEventBytes = 16 << 20

// errEventTooLarge is returned when an event passes maxEventBytes.
var errEventTooLarge = errors.New("server-sent event too large")

// sseEvent is one dispatched server-sent event.
//
// An event with Heartbeat set carried no data: a comment line (": keepalive")
// or a block of event:/id: fields without data. The stream is alive, nothing
// more; the decoder turns it into a zero Delta for stall detection.
type sseEvent struct {
	Event     string
	ID        string
	Data      []byte // data lines joined with "\n"; valid until the next call to next
	Heartbeat bool
}

// sseReader reads the text/event-stream format (WHATWG HTML, "Server-sent
// events"): lines end in "\r\n", "\n" or a lone "\r"; a blank line dispatches
// the event; "data" lines accumulate, joined with "\n"; lines starting with
// ":" are comments; a field's value loses one leading space. A final event
// not followed by a blank line is still dispatched at EOF, since servers
// that close right after their last event are common and the data is whole.
//
// It reads through a bufio.Reader rather than a bufio.Scanner so that a line
// is bounded only by maxEventBytes, not by the Scanner's 64 KiB token limit.
type sseReader struct {
	r *bufio.Reader

	line    []byte // the line being read, reused
	data    []byte // the data buffer of the event being built, reused
	hasData bool   // a data field was seen (an empty "data:" still counts)
	event   string
	id      string
	pending bool // some field of an event was seen since the last dispatch

	skipLF  bool // the last line ended in "\r": a "\n" right after it belongs to it
	started bool // the byte-order mark check is done
	eof     bool
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the next event. It returns io.EOF once the stream is over and
// every event in it has been dispatched; any other error is the underlying
// reader's (a cut connection), or errEventTooLarge.
func (s *sseReader) next() (sseEvent, error) {
	for {
		if s.eof {
			return s.dispatchAtEOF()
		}
		line, err := s.readLine()
		if err == io.EOF {
			s.eof = true
			if len(line) == 0 {
				continue
			}
		} else if err != nil {
			return sseEvent{}, err
		}
		if ev, ok, err := s.processLine(line); err != nil || ok {
			return ev, err
		}
	}
}

// dispatchAtEOF hands out an event left without its blank line, then EOF.
func (s *sseReader) dispatchAtEOF() (sseEvent, error) {
	if s.pending {
		return s.dispatch(), nil
	}
	return sseEvent{}, io.EOF
}

// processLine applies one line; ok reports an event to hand out.
func (s *sseReader) processLine(line []byte) (ev sseEvent, ok bool, err error) {
	if len(line) == 0 {
		if !s.pending {
			return sseEvent{}, false, nil
		}
		return s.dispatch(), true, nil
	}
	if line[0] == ':' {
		// A comment between events is the usual keepalive: report it so the
		// caller sees the stream is alive. Inside an event it is ignored.
		if s.pending {
			return sseEvent{}, false, nil
		}
		return sseEvent{Heartbeat: true}, true, nil
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	return sseEvent{}, false, s.setField(name, value)
}

func (s *sseReader) setField(name, value []byte) error {
	switch string(name) {
	case "error":
		// Not standard: llama.cpp sends a failure in the stream as an
		// "error:" line. It is read as the data of an "error" event.
		s.event = "error"
		fallthrough
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > maxEventBytes {
			return errEventTooLarge
		}
		s.data = append(s.data, value...)
		s.hasData = true
	case "event":
		s.event = string(value)
	case "id":
		// The standard ignores an id containing NUL.
		if bytes.IndexByte(value, 0) < 0 {
			s.id = string(value)
		}
	default:
		// "retry" and unknown fields mean nothing to a one-shot request,
		// but they still show an event is under way.
	}
	s.pending = true
	return nil
}

// dispatch hands out the event built so far and starts the next one.
func (s *sseReader) dispatch() sseEvent {
	ev := sseEvent{Event: s.event, ID: s.id, Data: s.data, Heartbeat: !s.hasData}
	if !s.hasData {
		ev.Data = nil
	}
	s.data = s.data[:0]
	s.hasData, s.pending, s.event = false, false, ""
	// The last event id persists across events, as the standard says.
	return ev
}

// readLine returns the next line without its terminator. At EOF it returns
// the unterminated rest (possibly empty) with io.EOF. The returned slice is
// valid until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	if err := s.startLine(); err != nil {
		return s.line, err
	}
	for {
		buf, err := s.fill()
		if err != nil {
			return s.line, err
		}
		if i := bytes.IndexAny(buf, "\r\n"); i >= 0 {
			if err := s.appendLine(buf[:i]); err != nil {
				return nil, err
			}
			s.skipLF = buf[i] == '\r'
			_, _ = s.r.Discard(i + 1)
			return s.line, nil
		}
		if err := s.appendLine(buf); err != nil {
			return nil, err
		}
		_, _ = s.r.Discard(len(buf))
	}
}

// startLine drops the "\n" of a "\r\n" split across reads, and a byte-order
// mark at the very start of the stream.
func (s *sseReader) startLine() error {
	if s.skipLF {
		s.skipLF = false
		b, err := s.r.Peek(1)
		if err != nil {
			return err
		}
		if b[0] == '\n' {
			_, _ = s.r.Discard(1)
		}
	}
	if !s.started {
		s.started = true
		return s.skipBOM()
	}
	return nil
}

// skipBOM drops a byte-order mark at the start of the stream. It waits for
// more bytes only while those it has match the mark, so a short first line
// is not held up.
func (s *sseReader) skipBOM() error {
	for n := 1; n <= len(bom); n++ {
		b, err := s.r.Peek(n)
		if len(b) < n {
			if len(b) == 0 {
				return err
			}
			return nil
		}
		if b[n-1] != bom[n-1] {
			return nil
		}
	}
	_, _ = s.r.Discard(len(bom))
	return nil
}

var bom = []byte("\uFEFF")

// fill returns the buffered bytes, reading more when none are buffered. It
// never waits for more than what one read brings, so an event is handed out
// as soon as its blank line arrives.
func (s *sseReader) fill() ([]byte, error) {
	if s.r.Buffered() == 0 {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
	}
	return s.r.Peek(s.r.Buffered())
}

func (s *sseReader) appendLine(b []byte) error {
	if len(s.line)+len(b) > maxEventBytes {
		return fmt.Errorf("%w: a line passes %d bytes", errEventTooLarge, maxEventBytes)
	}
	s.line = append(s.line, b...)
	return nil
}
