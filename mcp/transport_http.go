package mcp

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// guardedTransport is the HTTP round tripper of one http or sse server:
// it asks the Guard about every request before it is sent (the first
// connection, a reconnection, a redirect, the endpoint a legacy SSE server
// names), adds the configured headers to requests for the server's own
// origin only (a redirect elsewhere does not get its token), and turns a
// 401 into ErrLoginRequired.
type guardedTransport struct {
	base    http.RoundTripper
	guard   Guard
	info    ServerInfo
	origin  string
	headers map[string]string

	// unauthorized is set by a 401, for errors the SDK reports without
	// wrapping ours.
	unauthorized atomic.Bool
}

func (t *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.guard.CheckEndpoint(t.info, req.URL.String()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("MCP server %q: connection to %s refused: %w", t.info.Name, redactURL(req.URL), err)
	}
	if len(t.headers) > 0 && originOf(req.URL) == t.origin {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			// The SDK's own headers (session, protocol version) win.
			if req.Header.Get(k) == "" {
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		t.unauthorized.Store(true)
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, loginRequired(t.info.Name)
	}
	return resp, nil
}

func loginRequired(server string) error {
	return fmt.Errorf("%w: MCP server %q answered 401 Unauthorized: run `moteur mcp login %s`", ErrLoginRequired, server, server)
}

func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// redactURL drops the query and the user information, which may hold
// tokens, from a URL quoted in a message.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

// httpTransport returns the SDK transport of an http or sse server and
// its round tripper.
func httpTransport(sc ServerConfig, cfg *ManagerConfig, idle http.RoundTripper) (mcpsdk.Transport, *guardedTransport, error) {
	u, err := url.Parse(sc.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("url: %w", err)
	}
	var client http.Client
	if cfg.HTTPClient != nil {
		if c := cfg.HTTPClient(sc.Info()); c != nil {
			client = *c
		}
	}
	base := client.Transport
	if base == nil {
		base = idle
	}
	gt := &guardedTransport{base: base, guard: cfg.Guard, info: sc.Info(), origin: originOf(u), headers: sc.Headers}
	client.Transport = gt
	if sc.Transport == TransportSSE {
		return &mcpsdk.SSEClientTransport{Endpoint: sc.URL, HTTPClient: &client, MaxEventSize: cfg.MaxMessageBytes}, gt, nil
	}
	return &mcpsdk.StreamableClientTransport{Endpoint: sc.URL, HTTPClient: &client, MaxEventSize: cfg.MaxMessageBytes}, gt, nil
}
