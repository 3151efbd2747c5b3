package event

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Sink persists events. Write is called with each persisted event of every
// session, in seq order per session, and must not return before the event is
// durable to the degree the sink promises. A Write error stops the engine.
type Sink interface {
	Write(ctx context.Context, e Event) error
}

// JSONLSink appends events to a file, one JSON object per line. Each Write is
// flushed to the operating system before it returns; Sync (Config.Sync)
// additionally fsyncs.
type JSONLSink struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	sync bool
}

// JSONLConfig configures a JSONL sink.
type JSONLConfig struct {
	// Path of the file, created if missing, appended to otherwise.
	Path string
	// Sync fsyncs after every event.
	Sync bool
}

// OpenJSONL opens (or creates) the file for appending.
func OpenJSONL(cfg JSONLConfig) (*JSONLSink, error) {
	f, err := os.OpenFile(cfg.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return &JSONLSink{f: f, w: bufio.NewWriter(f), sync: cfg.Sync}, nil
}

// Write appends e as one line.
func (s *JSONLSink) Write(_ context.Context, e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode event %d: %w", e.Seq, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return fmt.Errorf("event log is closed")
	}
	b = append(b, '\n')
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("write event log: %w", err)
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("write event log: %w", err)
	}
	if s.sync {
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("sync event log: %w", err)
		}
	}
	return nil
}

// Close flushes and closes the file.
func (s *JSONLSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	return err
}

// ReadJSONL decodes every event of a JSONL log. A malformed line is an error
// that names its line number; events before it are returned with it.
func ReadJSONL(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		e, err := Decode(sc.Bytes())
		if err != nil {
			return out, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read event log: %w", err)
	}
	return out, nil
}
