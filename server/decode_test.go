package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type decodeSample struct {
	Query string   `json:"query"`
	KBs   []string `json:"knowledge_base_ids"`
	N     int      `json:"n"`
}

// serveDecode answers with the decoded request, or the decoding error.
func serveDecode(t *testing.T, cfg DecodeConfig) string {
	t.Helper()
	d := NewDecoder(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req decodeSample
		if err := d.Decode(w, r, &req); err != nil {
			WriteError(w, err)
			return
		}
		_ = json.NewEncoder(w).Encode(req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestDecodeAtTheWire(t *testing.T) {
	url := serveDecode(t, DecodeConfig{MaxBody: 64})
	cases := []struct {
		name, contentType, body string
		status                  int
		code                    string
		inMessage               []string
	}{
		{name: "valid", body: `{"query":"q","n":2}`, status: 200},
		{name: "valid with charset and whitespace", contentType: "application/json; charset=utf-8", body: " {\"query\":\"q\"}\n\t ", status: 200},
		{name: "exactly the limit", body: `{"query":"` + strings.Repeat("a", 64-12) + `"}`, status: 200},
		{name: "over the limit", body: `{"query":"` + strings.Repeat("a", 1000) + `"}`, status: 413, code: CodeBodyTooLarge, inMessage: []string{"64 bytes"}},
		{name: "malformed", body: `{"query": }`, status: 400, code: CodeMalformedJSON, inMessage: []string{"at byte 11", "invalid character '}'"}},
		{name: "truncated", body: `{"query":"a"`, status: 400, code: CodeMalformedJSON, inMessage: []string{"ends early", "after 12 bytes"}},
		{name: "unknown field", body: `{"query":"a","agnet_id":"x"}`, status: 400, code: CodeUnknownField, inMessage: []string{`"agnet_id"`}},
		{name: "wrong type", body: `{"n":"two"}`, status: 400, code: CodeInvalidField, inMessage: []string{"field n", "string", "int", "ending at byte 10"}},
		{name: "not an object", body: `[1]`, status: 400, code: CodeInvalidField, inMessage: []string{"array"}},
		{name: "trailing object", body: `{"query":"a"} {}`, status: 400, code: CodeTrailingData, inMessage: []string{"ends at byte 13"}},
		{name: "trailing garbage", body: `{"query":"a"}x`, status: 400, code: CodeTrailingData},
		{name: "empty", body: ``, status: 400, code: CodeEmptyBody},
		{name: "form post", contentType: "application/x-www-form-urlencoded", body: `query=a`, status: 415, code: CodeUnsupportedMedia, inMessage: []string{"application/x-www-form-urlencoded"}},
		{name: "no content type", contentType: "-", body: `{"query":"a"}`, status: 415, code: CodeUnsupportedMedia},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body))
			switch c.contentType {
			case "":
				req.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				req.Header.Set("Content-Type", c.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != c.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, b, c.status)
			}
			if c.status == 200 {
				return
			}
			e := apiError(t, resp)
			if e.Code != c.code {
				t.Errorf("code %q (%s), want %q", e.Code, e.Message, c.code)
			}
			for _, s := range c.inMessage {
				if !strings.Contains(e.Message, s) {
					t.Errorf("message %q does not say %q", e.Message, s)
				}
			}
		})
	}
}

// countingReader is an endless JSON string body that counts what is read.
type countingReader struct{ n int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestDecodeHugeBodyIsNotRead(t *testing.T) {
	const hundredMB = 100 << 20
	body := &countingReader{}
	r := io.MultiReader(strings.NewReader(`{"query":"`), io.LimitReader(body, hundredMB))
	req := httptest.NewRequest(http.MethodPost, "/", r)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	var dst decodeSample
	err := NewDecoder(DecodeConfig{}).Decode(rec, req, &dst)
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("100 MB body: %v, want a 413", err)
	}
	if body.n == 0 || body.n > DefaultMaxBody+64<<10 {
		t.Errorf("read %d bytes of a 100 MB body, want about the 1 MiB limit", body.n)
	}
	if !strings.Contains(ae.Message, "1048576 bytes") {
		t.Errorf("message %q does not name the default limit", ae.Message)
	}
}

func TestDecodeNotAPointerIsInternal(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(`{}`)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	err := NewDecoder(DecodeConfig{}).Decode(rec, req, decodeSample{})
	WriteError(rec, err)
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("decoding into a non-pointer: status %d, want 500", rec.Code)
	}
}
