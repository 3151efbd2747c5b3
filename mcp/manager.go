package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/redact"
)

// Defaults of ManagerConfig.
const (
	DefaultStartupTimeout  = 30 * time.Second
	DefaultShutdownGrace   = 2 * time.Second
	DefaultStderrBytes     = 8 << 10
	DefaultMaxMessageBytes = mcpsdk.DefaultMaxLineLength // 16 MiB
	DefaultMaxRestarts     = 3
)

// ManagerConfig configures a Manager. Zero values are the defaults, except
// Guard, which is required.
type ManagerConfig struct {
	// Servers are the session's servers, from Load. Those with Err set,
	// disabled or not trusted are reported and not started.
	Servers []ServerConfig
	// Guard checks what leaves the machine; required (Start refuses a nil
	// one with ErrNoGuard: there is no unchecked default).
	Guard Guard
	// HTTPClient, when set, gives the client of an http or sse server (the
	// OAuth layer's, which adds tokens). Its Transport is wrapped so that
	// the Guard and the headers still apply. Nil or a nil result: a plain
	// client.
	HTTPClient func(ServerInfo) *http.Client
	// LookupEnv reads Moteur's environment for the variables every stdio
	// server inherits (BaseEnv: PATH, HOME, LANG, …). Nil: a stdio server
	// gets only what its configuration names, not even PATH.
	LookupEnv LookupFunc
	// WorkDir is the working directory of stdio servers without a "cwd"
	// (normally the project root); "" is Moteur's own.
	WorkDir string
	// StartupTimeout bounds starting one server: process start,
	// initialize and tools/list (default 30 s; a server's
	// startup_timeout_ms overrides it).
	StartupTimeout time.Duration
	// ShutdownGrace is how long a stdio server is given to exit after its
	// stdin is closed, then after SIGTERM, before SIGKILL (default 2 s).
	ShutdownGrace time.Duration
	// StderrBytes is how much of a stdio server's stderr is kept for error
	// messages (the last bytes; default 8 KiB).
	StderrBytes int
	// MaxMessageBytes bounds one message from a server (default 16 MiB, the
	// SDK's): a bigger one ends the session with an error instead of
	// filling memory.
	MaxMessageBytes int
	// MaxRestarts is how many restarts in a row may fail before a server
	// that stopped is left down for the session (default 3).
	MaxRestarts int
	// ClientName and ClientVersion are sent in initialize (default
	// "moteur", "dev").
	ClientName, ClientVersion string
	// Elicit, when set, answers a server's requests for user input
	// (elicitation/create); nil declines the capability.
	Elicit func(ctx context.Context, server ServerInfo, req *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error)
	// Roots are announced to the servers as the client's roots (file://
	// URIs, normally the project root). Nil announces no roots capability.
	// A server that honours roots may restrict itself to them (the
	// filesystem server replaces its command-line directories with them).
	Roots []string
	// OnToolsChanged, when set, is called (from its own goroutine) after a
	// server's tool definitions changed: list_changed, a reconnection, a
	// server lost for good. Generation grows before it is called.
	OnToolsChanged func(server string)
	// Logger receives the SDK's diagnostics; nil discards them.
	Logger *slog.Logger
}

func (c *ManagerConfig) setDefaults() {
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = DefaultStartupTimeout
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	if c.StderrBytes <= 0 {
		c.StderrBytes = DefaultStderrBytes
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MaxRestarts <= 0 {
		c.MaxRestarts = DefaultMaxRestarts
	}
	if c.ClientName == "" {
		c.ClientName = "moteur"
	}
	if c.ClientVersion == "" {
		c.ClientVersion = "dev"
	}
}

// Manager runs the MCP servers of one session. It is safe for concurrent
// use; see the package doc for what it guarantees.
type Manager struct {
	cfg     ManagerConfig
	servers []*server // sorted by name, fixed at Start
	byName  map[string]*server
	idle    *http.Transport

	gen        atomic.Uint64
	progress   sync.Map // progress token (string) → the calling context
	tokenSeq   atomic.Uint64
	closed     atomic.Bool
	closeOnce  sync.Once
	bgMu       sync.Mutex     // orders background.Go after closed against Close's Wait
	background sync.WaitGroup // list_changed refreshes
}

// server is one configured server and its current connection.
type server struct {
	m    *Manager
	cfg  ServerConfig
	info ServerInfo

	dialMu sync.Mutex // one (re)connection at a time
	listMu sync.Mutex // one tools/list at a time, so a later list never loses to an earlier one

	mu       sync.Mutex // guards what follows
	state    State
	reason   string // why down, untrusted or disabled; masked
	conn     *conn
	tools    []*mcpsdk.Tool
	failures int // restarts failed in a row
}

// Start starts every startable server of cfg in parallel, each within its
// start-up timeout, and returns once each is connected or down. A server
// that fails does not stop the others. The only error is misuse (no
// Guard); a server's failure is in Status and Down.
func Start(ctx context.Context, cfg ManagerConfig) (*Manager, error) {
	if cfg.Guard == nil {
		return nil, ErrNoGuard
	}
	cfg.setDefaults()
	m := &Manager{cfg: cfg, byName: map[string]*server{}, idle: newIdleTransport()}
	for _, sc := range cfg.Servers {
		s := &server{m: m, cfg: sc, info: sc.Info()}
		if _, dup := m.byName[sc.Name]; dup {
			continue // Load never yields two; a hand-made list keeps the first
		}
		m.byName[sc.Name] = s
		m.servers = append(m.servers, s)
	}
	slices.SortFunc(m.servers, func(a, b *server) int { return compareStrings(a.cfg.Name, b.cfg.Name) })

	var wg sync.WaitGroup
	for _, s := range m.servers {
		if !s.classify() {
			continue
		}
		wg.Go(func() { s.start(ctx) })
	}
	wg.Wait()
	return m, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// classify sets the state of a server that must not be started and
// reports whether it may be.
func (s *server) classify() bool {
	sc := s.cfg
	switch {
	case sc.Err != nil:
		s.setDown(sc.Err.Error())
	case sc.Disabled:
		s.state, s.reason = StateDisabled, "disabled in "+sc.Source
	case !sc.Trusted:
		s.state, s.reason = StateUntrusted, untrustedMessage(sc)
	default:
		return true
	}
	return false
}

func untrustedMessage(sc ServerConfig) string {
	return fmt.Sprintf("not started: %s came with the project and is not trusted yet; "+
		"moteur asks on a terminal whether to trust it (or pass --trust-project), and asks again whenever the file changes", sc.Source)
}

func (s *server) startupTimeout() time.Duration {
	if s.cfg.StartupTimeout > 0 {
		return s.cfg.StartupTimeout
	}
	return s.m.cfg.StartupTimeout
}

// start makes the first connection.
func (s *server) start(ctx context.Context) {
	s.dialMu.Lock()
	defer s.dialMu.Unlock()
	_ = s.dialTimed(ctx, func(c *conn, tools []*mcpsdk.Tool, err error) error {
		if err != nil {
			s.setDown(err.Error())
			return err
		}
		s.state, s.reason, s.conn, s.tools = StateConnected, "", c, tools
		return nil
	})
}

// dialTimed dials within the start-up timeout and hands the outcome to
// commit, called with s.mu held and before any list_changed of the new
// connection is handled. It refuses once the manager is closed, and
// closes what it made if the manager closed meanwhile.
func (s *server) dialTimed(ctx context.Context, commit func(*conn, []*mcpsdk.Tool, error) error) error {
	if s.m.closed.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
		return commit(nil, nil, errManagerClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, s.startupTimeout())
	defer cancel()
	s.listMu.Lock()
	defer s.listMu.Unlock()
	c, tools, err := dial(ctx, s)
	if err == nil && s.m.closed.Load() {
		c.close()
		c, tools, err = nil, nil, errManagerClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return commit(c, tools, err)
}

var errManagerClosed = fmt.Errorf("%w: the session's MCP servers were stopped", ErrServerDown)

// setDown records a server as down; s.mu held or s not yet shared.
func (s *server) setDown(reason string) {
	masked, _ := redact.String(reason)
	s.state, s.reason, s.tools = StateDown, masked, nil
}

// Servers returns the connected servers, sorted by name.
func (m *Manager) Servers() []ServerInfo {
	var out []ServerInfo
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateConnected {
			out = append(out, s.info)
		}
		s.mu.Unlock()
	}
	return out
}

// ServerTools returns the server's current tool definitions; nil for an
// unknown server or one that is not connected, empty for a connected
// server that has none. The slice is the caller's;
// the tools are shared and must not be modified.
func (m *Manager) ServerTools(name string) []*mcpsdk.Tool {
	s, ok := m.byName[name]
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateConnected {
		return nil
	}
	return append([]*mcpsdk.Tool{}, s.tools...) // empty, not nil, for a server without tools
}

// Generation grows whenever any server's tool list may have changed
// (list_changed, a reconnection, Refresh, a server lost).
func (m *Manager) Generation() uint64 { return m.gen.Load() }

// toolsChanged bumps the generation and tells the listener.
func (m *Manager) toolsChanged(name string) {
	m.gen.Add(1)
	if f := m.cfg.OnToolsChanged; f != nil {
		go f(name)
	}
}

// Status describes every configured server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		s.mu.Lock()
		st := ServerStatus{
			Name: s.cfg.Name, Transport: s.cfg.Transport, Source: s.cfg.Source,
			Trusted: s.cfg.Trusted, Local: s.cfg.Local, State: s.state, Tools: len(s.tools), Error: s.reason,
		}
		if s.state == StateConnected && s.conn != nil && s.conn.dead() {
			st.Error = "stopped; restarted on its next call"
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Down returns the servers that are not running for a reason the user
// should hear of: failed to start, invalid configuration, or untrusted
// (disabled ones are the user's choice and are not listed). One
// McpServerDown event each follows SessionStarted.
func (m *Manager) Down() []event.McpServerDownPayload {
	var out []event.McpServerDownPayload
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateDown || s.state == StateUntrusted {
			out = append(out, event.McpServerDownPayload{Name: s.cfg.Name, Transport: s.cfg.Transport, Error: s.reason})
		}
		s.mu.Unlock()
	}
	return out
}

// Connected describes the connected servers for SessionStarted.
func (m *Manager) Connected() []event.MCPServerInfo {
	var out []event.MCPServerInfo
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateConnected {
			names := make([]string, 0, len(s.tools))
			for _, t := range s.tools {
				names = append(names, t.Name)
			}
			out = append(out, event.MCPServerInfo{Name: s.cfg.Name, Transport: s.cfg.Transport, Tools: names})
		}
		s.mu.Unlock()
	}
	return out
}

// Close stops every server (stdio servers' whole process groups) and
// aborts the calls in flight. It is idempotent and returns once all are
// stopped.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() {
		m.bgMu.Lock()
		m.closed.Store(true)
		m.bgMu.Unlock()
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Go(func() {
				// After any (re)connection in progress: it sees closed and
				// gives up, or finishes and is closed here.
				s.dialMu.Lock()
				defer s.dialMu.Unlock()
				s.mu.Lock()
				c := s.conn
				s.conn = nil
				s.mu.Unlock()
				if c != nil {
					c.close()
				}
			})
		}
		wg.Wait()
		m.background.Wait()
		m.idle.CloseIdleConnections()
	})
	return nil
}

// lookup finds a server by name.
func (m *Manager) lookup(name string) (*server, error) {
	if m.closed.Load() {
		return nil, errManagerClosed
	}
	s, ok := m.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return s, nil
}

// live returns the server's connection, restarting a server that
// stopped. A server that could not start at all stays down until Refresh.
func (s *server) live(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	state, c, reason := s.state, s.conn, s.reason
	s.mu.Unlock()
	switch {
	case state == StateConnected && c != nil && !c.dead():
		return c, nil
	case state == StateConnected:
		return s.restart(ctx, false)
	default:
		return nil, fmt.Errorf("%w: %q is %s: %s", ErrServerDown, s.cfg.Name, state, reason)
	}
}

// restart replaces a dead connection. force also retries a server that is
// down (Refresh), resetting its count of failures.
func (s *server) restart(ctx context.Context, force bool) (*conn, error) {
	s.dialMu.Lock()
	defer s.dialMu.Unlock()
	s.mu.Lock()
	old := s.conn
	switch {
	case s.state == StateConnected && old != nil && !old.dead():
		s.mu.Unlock()
		return old, nil // restarted by another caller meanwhile
	case s.state == StateDown && force:
		s.failures = 0
	case s.state != StateConnected:
		err := fmt.Errorf("%w: %q is %s: %s", ErrServerDown, s.cfg.Name, s.state, s.reason)
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Unlock()
	if old != nil {
		old.close() // what is left of it: its process group, its HTTP session
	}

	var live *conn
	err := s.dialTimed(ctx, func(c *conn, tools []*mcpsdk.Tool, err error) error {
		if err != nil {
			if errors.Is(err, errManagerClosed) {
				return err
			}
			s.failures++
			if s.failures >= s.m.cfg.MaxRestarts || s.state == StateDown {
				s.setDown(fmt.Sprintf("restart failed %d times, the last: %v", s.failures, err))
				s.conn = nil
				s.m.toolsChanged(s.cfg.Name)
			}
			return fmt.Errorf("%w: restarting %q failed: %v", ErrServerDown, s.cfg.Name, err)
		}
		s.state, s.reason, s.conn, s.tools, s.failures = StateConnected, "", c, tools, 0
		s.m.toolsChanged(s.cfg.Name)
		live = c
		return nil
	})
	return live, err
}

// Refresh lists the tools of a server again ("" = every server), and
// reconnects one that stopped or is down. Untrusted, disabled and
// misconfigured servers are not started by it.
func (m *Manager) Refresh(ctx context.Context, name string) error {
	if name != "" {
		s, err := m.lookup(name)
		if err != nil {
			return err
		}
		return s.refresh(ctx)
	}
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(func() {
			if err := s.refresh(ctx); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *server) refresh(ctx context.Context) error {
	if s.m.closed.Load() {
		return errManagerClosed
	}
	s.mu.Lock()
	state, c := s.state, s.conn
	s.mu.Unlock()
	switch {
	case state == StateConnected && c != nil && !c.dead():
		return s.relist(ctx, c)
	case state == StateConnected, state == StateDown && s.cfg.Err == nil:
		_, err := s.restart(ctx, true)
		return err
	default:
		return nil // nothing to refresh: not ours to start
	}
}

// relist lists c's tools again and stores them if c is still current.
func (s *server) relist(ctx context.Context, c *conn) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	current := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.conn == c
	}
	if !current() {
		return nil // replaced, or never installed: its tools do not count
	}
	tools, err := c.listTools(ctx)
	if err != nil {
		return c.callError(ctx, "tools/list", err)
	}
	s.mu.Lock()
	stored := s.conn == c
	if stored {
		s.tools = tools
	}
	s.mu.Unlock()
	if stored {
		s.m.toolsChanged(s.cfg.Name)
	}
	return nil
}

// onListChanged refreshes a server's tools after its list_changed, off
// the SDK's reading goroutine.
func (s *server) onListChanged(c *conn) {
	s.m.bgMu.Lock()
	defer s.m.bgMu.Unlock()
	if s.m.closed.Load() {
		return
	}
	s.m.background.Go(func() {
		ctx, cancel := context.WithTimeout(c.ctx, s.startupTimeout())
		defer cancel()
		if err := s.relist(ctx, c); err != nil && s.m.cfg.Logger != nil {
			s.m.cfg.Logger.Warn("MCP tools/list after list_changed failed", "server", s.cfg.Name, "error", err)
		}
	})
}

// OffersResources reports whether a connected server declared the
// resources capability (so that resources can be read from the start).
func (m *Manager) OffersResources(name string) bool {
	s, ok := m.byName[name]
	if !ok {
		return false
	}
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil || c.session == nil {
		return false
	}
	res := c.session.InitializeResult()
	return res != nil && res.Capabilities != nil && res.Capabilities.Resources != nil
}
