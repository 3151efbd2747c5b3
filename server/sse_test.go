package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/moteur/moteur/event"
)

func TestWriteDataGuardsLineBreaks(t *testing.T) {
	cases := map[string]string{
		`{"a":1}`:         "data: {\"a\":1}\n",
		"{\n\"a\":1}":     "data: {\ndata: \"a\":1}\n",
		"{\r\n\"a\":1\r}": "data: {\ndata: \"a\":1\ndata: }\n",
		"{\"a\":1}\n":     "data: {\"a\":1}\ndata: \n",
		"":                "data: \n",
		"\r\r":            "data: \ndata: \ndata: \n",
	}
	for in, want := range cases {
		var b bytes.Buffer
		writeData(&b, []byte(in))
		if b.String() != want {
			t.Errorf("writeData(%q) = %q, want %q", in, b.String(), want)
		}
	}
}

func TestSSEEventRefusesTypeWithLineBreak(t *testing.T) {
	rec := httptest.NewRecorder()
	s, err := newSSEWriter(rec)
	if err != nil {
		t.Fatal(err)
	}
	err = s.event(event.Event{Seq: 1, Type: "X\nevent: Fake"})
	if err == nil || rec.Body.Len() != 0 {
		t.Errorf("type with a line break: err %v, wrote %q; want an error and nothing written", err, rec.Body)
	}
	// The same writer sends a sound event: the refusal was the type's.
	if err := s.event(event.Event{Seq: 1, Type: event.Warning, Payload: event.WarningPayload{}}); err != nil || !strings.HasPrefix(rec.Body.String(), "id: 1\nevent: Warning\ndata: {") {
		t.Errorf("sound event: %v, %q", err, rec.Body)
	}
}

func TestSSECommentCannotInjectFields(t *testing.T) {
	rec := httptest.NewRecorder()
	s, _ := newSSEWriter(rec)
	if err := s.comment("a\ndata: x\r"); err != nil {
		t.Fatal(err)
	}
	if got := rec.Body.String(); got != ": a data: x \n\n" {
		t.Errorf("comment wrote %q", got)
	}
}

func TestAfterSeqHeaderWinsOverQuery(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/x?after=3", nil)
	if n, err := afterSeq(req); n != 3 || err != nil {
		t.Errorf("?after=3: %d, %v", n, err)
	}
	req.Header.Set("Last-Event-ID", "8")
	if n, err := afterSeq(req); n != 8 || err != nil {
		t.Errorf("?after=3 with Last-Event-ID 8: %d, %v; want 8", n, err)
	}
	if n, err := afterSeq(httptest.NewRequest(http.MethodGet, "/x", nil)); n != 0 || err != nil {
		t.Errorf("neither: %d, %v; want 0", n, err)
	}
}

func FuzzParseSeq(f *testing.F) {
	for _, s := range []string{"0", "1", "007", "18446744073709551615", "18446744073709551616", "-1", "+1", "1e3", "0x10", "1_000", " 1", "", "١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSeq("Last-Event-ID", s)
		if err != nil {
			ae, ok := err.(*Error)
			if !ok || ae.Status != http.StatusBadRequest || ae.Code != CodeBadAfter {
				t.Fatalf("parseSeq(%q): %v, want a 400 bad_after", s, err)
			}
			if len(ae.Message) > 300 { // 40 bytes of input at most, each quoted in at most 4
				t.Fatalf("parseSeq(%q): message of %d bytes: client input must be clipped", s, len(ae.Message))
			}
			return
		}
		// Accepted: digits only, and the value is the number they write.
		for _, r := range s {
			if r < '0' || r > '9' {
				t.Fatalf("parseSeq(%q) = %d: accepted a non-digit %q", s, n, r)
			}
		}
		trimmed := strings.TrimLeft(s, "0")
		if trimmed == "" {
			trimmed = "0"
		}
		if strconv.FormatUint(n, 10) != trimmed || !utf8.ValidString(s) {
			t.Fatalf("parseSeq(%q) = %d", s, n)
		}
	})
}
