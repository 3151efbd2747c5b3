package openai

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readEvents reads every event from r; the returned error is the one that
// ended the reading, nil for io.EOF.
func readEvents(r io.Reader) ([]sseEvent, error) {
	sr := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := sr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		ev.Data = bytes.Clone(ev.Data) // valid only until the next call
		out = append(out, ev)
	}
}

func data(s string) sseEvent { return sseEvent{Data: []byte(s)} }

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"lf", "data: a\n\ndata: b\n\n", []sseEvent{data("a"), data("b")}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{data("a"), data("b")}},
		{"lone cr", "data: a\r\rdata: b\r\r", []sseEvent{data("a"), data("b")}},
		{"multi-line data joined with LF", "data: a\ndata: b\ndata:\n\n", []sseEvent{data("a\nb\n")}},
		{"one leading space dropped only", "data:  a\ndata:b\n\n", []sseEvent{data(" a\nb")}},
		{"comment between events is a heartbeat", ": keepalive\n\ndata: a\n\n",
			[]sseEvent{{Heartbeat: true}, data("a")}},
		{"comment inside an event is ignored", "data: a\n: ping\ndata: b\n\n", []sseEvent{data("a\nb")}},
		{"event and id fields", "event: message\nid: 7\ndata: a\n\ndata: b\n\n",
			[]sseEvent{{Event: "message", ID: "7", Data: []byte("a")}, {ID: "7", Data: []byte("b")}}},
		{"event without data is a heartbeat", "event: ping\n\n", []sseEvent{{Event: "ping", Heartbeat: true}}},
		{"final event without blank line", "data: a\n\ndata: b", []sseEvent{data("a"), data("b")}},
		{"final event with one newline", "data: a\n", []sseEvent{data("a")}},
		{"extra blank lines", "\n\n\ndata: a\n\n\n\n", []sseEvent{data("a")}},
		{"byte-order mark", "\uFEFFdata: a\n\n", []sseEvent{data("a")}},
		{"field without colon", "data\n\n", []sseEvent{data("")}},
		{"retry and unknown fields", "retry: 10\nfoo: bar\ndata: a\n\n", []sseEvent{data("a")}},
		{"empty", "", nil},
		{"llama.cpp error field", "error: {\"code\":500}\n\n", []sseEvent{{Event: "error", Data: []byte(`{"code":500}`)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got, err := readEvents(r)
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if !sameEvents(got, tc.want) {
					t.Errorf("got %s\nwant %s", fmtEvents(got), fmtEvents(tc.want))
				}
			}
		})
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20) // far past bufio.Scanner's 64 KiB
	got, err := readEvents(strings.NewReader("data: " + long + "\r\n\r\ndata: b\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0].Data) != long || string(got[1].Data) != "b" {
		t.Fatalf("long line not read whole: %d events", len(got))
	}
}

func TestSSEReaderTooLarge(t *testing.T) {
	huge := io.MultiReader(strings.NewReader("data: "), io.LimitReader(neverEnding('x'), maxEventBytes+10))
	if _, err := readEvents(huge); !errors.Is(err, errEventTooLarge) {
		t.Fatalf("got %v, want errEventTooLarge", err)
	}
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readEvents(r)
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the read error", err)
	}
	if len(got) != 1 || string(got[0].Data) != "a" {
		t.Fatalf("events before the error: %s", fmtEvents(got))
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func sameEvents(a, b []sseEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Event != y.Event || x.ID != y.ID || x.Heartbeat != y.Heartbeat || !bytes.Equal(x.Data, y.Data) {
			return false
		}
	}
	return true
}

func fmtEvents(evs []sseEvent) string {
	var sb strings.Builder
	for _, e := range evs {
		sb.WriteString("{")
		if e.Heartbeat {
			sb.WriteString("heartbeat ")
		}
		if e.Event != "" {
			sb.WriteString("event=" + e.Event + " ")
		}
		if e.ID != "" {
			sb.WriteString("id=" + e.ID + " ")
		}
		sb.WriteString("data=" + strings.ReplaceAll(string(e.Data), "\n", `\n`) + "}")
	}
	return sb.String()
}

// FuzzSSE checks that the reader never panics and that how the bytes are cut
// into reads does not change the events.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\ndata: [DONE]\n\n",
		"data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n",
		": keepalive\n\nevent: error\ndata: {\"error\":\"x\"}\n\n",
		"id: 1\nretry: 5\ndata\n\ndata: last",
		"\uFEFFdata: a\r\rdata: b\r\n",
		"\r\n\r\r\n::\ndata:\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err1 := readEvents(bytes.NewReader(in))
		bytewise, err2 := readEvents(iotest.OneByteReader(bytes.NewReader(in)))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if !sameEvents(whole, bytewise) {
			t.Fatalf("events depend on read sizes:\n%s\n%s", fmtEvents(whole), fmtEvents(bytewise))
		}
		for _, ev := range whole {
			if ev.Heartbeat && len(ev.Data) != 0 {
				t.Fatalf("heartbeat with data: %q", ev.Data)
			}
		}
	})
}
