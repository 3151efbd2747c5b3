package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// SessionTimeout closes an HTTP session idle for that long.
const SessionTimeout = 30 * time.Minute

// Handler serves the streamable HTTP transport at Path. A listener on a
// loopback address refuses a request whose Host is not loopback (DNS
// rebinding: a web page whose name resolves to 127.0.0.1), and a request
// a browser marks as coming from another origin is refused wherever the
// server listens: a web page the user visits must not read the bases.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: SessionTimeout})
	mux := http.NewServeMux()
	mux.Handle(Path, http.NewCrossOriginProtection().Handler(h))
	return mux
}

// Serve serves the streamable HTTP transport on ln until ctx ends. Then
// every request under way is cancelled (the calls only read: nothing is
// left half done) and open streams end, so the server stops at once
// rather than waiting on clients that keep a stream open.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	cancel()
	sctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer stop()
	err := srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// ListenAddr resolves an --http address: a missing host means the
// loopback address 127.0.0.1 (":8765" listens on 127.0.0.1:8765), never
// every interface. loopback reports whether only this machine can connect.
func ListenAddr(addr string) (resolved string, loopback bool, err error) {
	host, port, err := net.SplitHostPort(strings.TrimSpace(addr))
	if err != nil {
		return "", false, fmt.Errorf("--http %q: want HOST:PORT or :PORT (%w)", addr, err)
	}
	if port == "" {
		return "", false, fmt.Errorf("--http %q: no port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), isLoopback(host), nil
}

// isLoopback reports whether host names this machine only: localhost or a
// loopback IP. Any other name may resolve to an outside address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
