package oauth

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// protocolVersion is the MCP version the probe offers.
const protocolVersion = "2025-11-25"

// probe asks the server without a token, as an MCP client starts, until it
// answers 401 (or 403): that answer's WWW-Authenticate header is where
// discovery starts. Most servers refuse the first request, initialize;
// some let initialize through and refuse the first real request, so the
// probe goes on to tools/list in the session it was given. A legacy SSE
// endpoint that refuses the POST is asked with a GET.
func (l *login) probe(ctx context.Context) (*http.Request, *http.Response, error) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":{},"clientInfo":{"name":"moteur","version":"login"}}}`
	req, resp, err := l.post(ctx, init, nil)
	if err == nil && resp.StatusCode == http.StatusMethodNotAllowed {
		drain(resp)
		return l.probeSSE(ctx)
	}
	if err != nil {
		return nil, nil, l.unreachable(err)
	}
	if asksForAuth(resp) {
		return req, resp, nil
	}
	if resp.StatusCode >= 300 {
		drain(resp)
		return nil, nil, fmt.Errorf("%s answered HTTP %d, not 401 Unauthorized: check the server's URL", redactURL(l.cfg.URL), resp.StatusCode)
	}
	// initialize went through: go on in that session.
	session := resp.Header.Get("Mcp-Session-Id")
	version := negotiatedVersion(resp)
	h := http.Header{}
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	h.Set("Mcp-Protocol-Version", version)
	if _, r, err := l.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); err == nil {
		drain(r)
	}
	req, resp, err = l.post(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h)
	if err != nil {
		return nil, nil, l.unreachable(err)
	}
	if asksForAuth(resp) {
		return req, resp, nil
	}
	drain(resp)
	l.endSession(h)
	return nil, nil, fmt.Errorf("%w: %s answered initialize and tools/list without a token, so there is nothing to log in to", ErrNotProtected, redactURL(l.cfg.URL))
}

// probeSSE asks a legacy SSE endpoint, which takes a GET.
func (l *login) probeSSE(ctx context.Context) (*http.Request, *http.Response, error) {
	req, resp, err := l.get(ctx)
	if err != nil {
		return nil, nil, l.unreachable(err)
	}
	if asksForAuth(resp) {
		return req, resp, nil
	}
	resp.Body.Close() // an open event stream: not read
	if resp.StatusCode < 300 {
		return nil, nil, fmt.Errorf("%w: %s opened its event stream without a token, so there is nothing to log in to", ErrNotProtected, redactURL(l.cfg.URL))
	}
	return nil, nil, fmt.Errorf("%s answered HTTP %d, not 401 Unauthorized: check the server's URL", redactURL(l.cfg.URL), resp.StatusCode)
}

func asksForAuth(resp *http.Response) bool {
	return resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
}

func (l *login) unreachable(err error) error {
	return fmt.Errorf("cannot reach the server at %s: %w", redactURL(l.cfg.URL), err)
}

func (l *login) post(ctx context.Context, body string, h http.Header) (*http.Request, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.cfg.URL, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := l.client.Do(req)
	return req, resp, err
}

func (l *login) get(ctx context.Context) (*http.Request, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.cfg.URL, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := l.client.Do(req)
	return req, resp, err
}

// endSession closes the session the probe opened, as a polite client does.
func (l *login) endSession(h http.Header) {
	if h.Get("Mcp-Session-Id") == "" {
		return
	}
	req, err := http.NewRequest(http.MethodDelete, l.cfg.URL, nil)
	if err != nil {
		return
	}
	req.Header = h.Clone()
	if resp, err := l.client.Do(req); err == nil {
		drain(resp)
	}
}

// negotiatedVersion reads the protocol version from an initialize answer
// (JSON, or the first event of a stream, read no further: a stream may stay
// open) and closes the body; the version offered when it says none.
func negotiatedVersion(resp *http.Response) string {
	defer drain(resp)
	body := io.LimitReader(resp.Body, 1<<20)
	var raw []byte
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				raw = []byte(d)
				break
			}
		}
	} else {
		raw, _ = io.ReadAll(body)
	}
	var msg struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(raw, &msg) != nil || msg.Result.ProtocolVersion == "" {
		return protocolVersion
	}
	return msg.Result.ProtocolVersion
}
