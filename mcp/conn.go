package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one live session with a server: the SDK session and what runs
// under it (the process of a stdio server, the round tripper of an HTTP
// one). A server has at most one conn at a time; a new one replaces a dead
// one.
type conn struct {
	srv     *server
	session *mcpsdk.ClientSession
	proc    *stdioProc        // stdio only
	http    *guardedTransport // http and sse only

	// ctx is cancelled when the conn is closed on purpose, which aborts
	// the calls in flight (the SDK sends notifications/cancelled) so that
	// closing never waits on a server that does not answer.
	ctx    context.Context
	cancel context.CancelFunc

	done chan struct{} // closed when the session ended, for any reason
	// endErr is why the session ended, as the SDK tells it (a message over
	// the size limit, a broken pipe); set before done is closed.
	endErr    error
	closeOnce sync.Once
}

// dead reports whether the session ended.
func (c *conn) dead() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// close ends the session and stops what runs under it. Idempotent.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.cancel()
		if c.proc != nil {
			c.proc.stop() // the reader then sees EOF, so the SDK's Close returns at once
		}
		_ = c.session.Close()
	})
}

// watch marks the conn dead when its session ends, and stops a process
// whose session ended without it.
func (c *conn) watch() {
	c.endErr = c.session.Wait()
	close(c.done)
	c.close()
}

// callContext returns ctx, also cancelled when the conn is closed.
func (c *conn) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// diagnostics says how a stdio process ended and what it wrote on stderr
// (masked), for error messages; "" when there is nothing to say.
func (c *conn) diagnostics() string {
	if c.proc == nil {
		return ""
	}
	var s string
	if exit := c.proc.describeExit(); exit != "" {
		s = "process " + exit
	}
	if tail := c.proc.diag.String(); tail != "" {
		if s != "" {
			s += "; "
		}
		s += "its stderr: " + tail
	}
	return s
}

// dial connects to srv's server: starts its process or opens its HTTP
// session, initializes, and lists its tools, all within ctx.
func dial(ctx context.Context, srv *server) (*conn, []*mcpsdk.Tool, error) {
	m, sc := srv.m, srv.cfg
	c := &conn{srv: srv, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())

	var t mcpsdk.Transport
	switch sc.Transport {
	case TransportStdio:
		p, st, err := startStdio(sc, &m.cfg)
		if err != nil {
			c.cancel()
			return nil, nil, err
		}
		c.proc, t = p, st
	case TransportHTTP, TransportSSE:
		if err := m.cfg.Guard.CheckEndpoint(sc.Info(), sc.URL); err != nil {
			c.cancel()
			return nil, nil, fmt.Errorf("connection refused by the outbound policy: %w", err)
		}
		ht, gt, err := httpTransport(sc, &m.cfg, m.idle)
		if err != nil {
			c.cancel()
			return nil, nil, err
		}
		c.http, t = gt, ht
	default:
		c.cancel()
		return nil, nil, fmt.Errorf("unknown transport %q", sc.Transport)
	}

	// The SDK ties a transport's life to the context of Connect (the
	// legacy SSE stream is a GET made with it), so Connect gets one that
	// lives as long as the conn, cut short only while starting by ctx (the
	// start-up timeout).
	life, cut := context.WithCancel(c.ctx)
	stopCut := context.AfterFunc(ctx, cut)
	session, err := m.newClient(srv, c).Connect(life, t, nil)
	if err != nil {
		stopCut()
		cut()
		if c.proc != nil {
			c.proc.stop()
		}
		c.cancel()
		return nil, nil, c.startError(ctx, "initialize", err)
	}
	c.session = session
	go c.watch()

	tools, err := c.listTools(life)
	if err == nil && !stopCut() {
		err = ctx.Err() // the timeout struck just as the list arrived
	}
	if err != nil {
		c.close()
		return nil, nil, c.startError(ctx, "tools/list", err)
	}
	return c, tools, nil
}

// startError explains why a start failed: a timeout says which request
// went unanswered, a process that exited says how, with its stderr.
func (c *conn) startError(ctx context.Context, op string, err error) error {
	timeout := c.srv.startupTimeout()
	switch {
	case c.http != nil && (errors.Is(err, ErrLoginRequired) || c.http.unauthorized.Load()):
		if !errors.Is(err, ErrLoginRequired) {
			err = fmt.Errorf("%w: %v", loginRequired(c.srv.cfg.Name), err)
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("no answer to %s within %s", op, timeout)
	default:
		err = fmt.Errorf("%s: %w", op, err)
	}
	if c.proc != nil {
		c.proc.stop()
		c.proc.settle(sessionEndGrace)
	}
	if d := c.diagnostics(); d != "" {
		return fmt.Errorf("%w (%s)", err, d)
	}
	return err
}

// listTools reads the server's whole tool list, page by page.
func (c *conn) listTools(ctx context.Context) ([]*mcpsdk.Tool, error) {
	var tools []*mcpsdk.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// callError turns the error of a request on c into what the caller
// should see: the caller's cancellation, a login to do, a JSON-RPC error
// of the server, or the server having stopped (ErrServerDown, with how).
func (c *conn) callError(ctx context.Context, op string, err error) error {
	name := c.srv.cfg.Name
	if ctx.Err() != nil {
		return fmt.Errorf("MCP server %q: %s: %w", name, op, ctx.Err())
	}
	if c.http != nil && (errors.Is(err, ErrLoginRequired) || c.http.unauthorized.Load()) {
		if errors.Is(err, ErrLoginRequired) {
			return err
		}
		return fmt.Errorf("%w (%v)", loginRequired(name), err)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && !c.dead() {
		return fmt.Errorf("MCP server %q: %s: %w", name, op, err)
	}
	if c.stopped(err) {
		// Finish it off now, so that the next call sees it dead and
		// restarts it rather than meeting the same end.
		c.close()
		<-c.done
		if c.proc != nil {
			c.proc.settle(sessionEndGrace)
		}
		detail := c.diagnostics()
		if detail != "" {
			detail = " (" + detail + ")"
		}
		// A call the end of the session cancelled says only "context
		// canceled": the session's own error says why it ended.
		if c.endErr != nil && errors.Is(err, context.Canceled) {
			err = c.endErr
		}
		return fmt.Errorf("%w: MCP server %q stopped during %s: %v%s; it will be restarted on the next call", ErrServerDown, name, op, err, detail)
	}
	return fmt.Errorf("MCP server %q: %s: %w", name, op, err)
}

// stopped reports whether err means the session is gone. The SDK fails
// the calls in flight before the session reports its end, so a read-side
// failure gets a moment to show.
func (c *conn) stopped(err error) bool {
	if c.dead() || errors.Is(err, mcpsdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	t := time.NewTimer(sessionEndGrace)
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
		return false
	}
}

// sessionEndGrace: how long a failed call waits to learn whether the
// session ended with it, and an exited process for its exit status and
// the end of its stderr.
const sessionEndGrace = time.Second

// idleTransport is the base of HTTP servers without a client of their
// own; the manager closes its idle connections when it closes.
func newIdleTransport() *http.Transport {
	return http.DefaultTransport.(*http.Transport).Clone()
}
