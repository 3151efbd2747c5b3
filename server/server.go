package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// DefaultMaxUpload bounds a multipart upload of documents, in bytes.
const DefaultMaxUpload = 512 << 20

// KeyVerifier tells the key a request's secret stands for (apikey.Store
// implements it). An unknown, revoked or malformed secret is an error
// wrapping apikey.ErrInvalid.
type KeyVerifier interface {
	Verify(ctx context.Context, secret string) (apikey.Key, error)
}

// AgentStore keeps the custom agents (agentstore.Store implements it).
// Resolve and All see the built-in agents too; the rest only stored ones.
type AgentStore interface {
	Resolve(ctx context.Context, ref string, l i18n.Lang) (agentconfig.Agent, error)
	All(ctx context.Context, l i18n.Lang) ([]agentconfig.Agent, error)
	Create(ctx context.Context, a agentconfig.Agent) (agentconfig.Agent, error)
	Get(ctx context.Context, id string) (agentconfig.Agent, error)
	Update(ctx context.Context, a agentconfig.Agent) (agentconfig.Agent, error)
	Delete(ctx context.Context, id string) error
}

// Config configures a Server. Keys and Agents are required; the zero value
// of every other field is the default.
type Config struct {
	// Base are the options every session is opened with: the data
	// directory, the project, the environment, the language, the sandbox,
	// the approval timeout. SessionID, Agent and KnowledgeBases are set per
	// turn.
	Base app.Options
	// Keys checks the API keys of requests.
	Keys KeyVerifier
	// Agents keeps the custom agents.
	Agents AgentStore
	// Now tells the time (nil: time.Now).
	Now func() time.Time
	// MaxBody bounds a JSON request body (0: DefaultMaxBody).
	MaxBody int64
	// MaxUpload bounds a multipart upload (0: DefaultMaxUpload).
	MaxUpload int64
	// KeepAlive is the interval of keep-alive comments on event streams
	// (0: DefaultKeepAlive; negative: none).
	KeepAlive time.Duration
}

// Server is Moteur's HTTP face. It is an http.Handler; Shutdown drains it.
// Its only state of its own is what runs in this process — the turns in
// progress and the streams that follow them; sessions, approvals, agents
// and keys are in the store.
type Server struct {
	cfg      Config
	lang     i18n.Lang
	mux      *http.ServeMux
	decoder  *Decoder
	db       app.Database
	store    session.Store
	observer *engine.Engine // follows sessions and answers requests; runs no turn
	follow   *SessionEvents
	patterns []string // every route registered, for the OpenAPI check

	// base ends the streams that follow sessions (GET …/events) when the
	// server shuts down; turns run under it too, so that a hard stop ends
	// them.
	base     context.Context
	stopBase context.CancelFunc

	mu       sync.Mutex
	turns    map[string]*liveTurn // by session id
	draining bool
	idle     *sync.Cond // signalled when a turn ends
}

// New opens the session store of cfg.Base's data directory (creating it),
// in the database its environment chooses (app.DatabaseOf), and returns
// the server. Close it with Shutdown.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Keys == nil || cfg.Agents == nil {
		return nil, errors.New("server: Config.Keys and Config.Agents are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxUpload <= 0 {
		cfg.MaxUpload = DefaultMaxUpload
	}
	if cfg.Base.Env == nil {
		cfg.Base.Env = func(string) string { return "" }
	}
	home := cfg.Base.DataDir
	if home == "" {
		var err error
		if home, err = app.DataDir(cfg.Base.Env); err != nil {
			return nil, err
		}
		cfg.Base.DataDir = home
	}
	db, err := app.DatabaseOf(cfg.Base.Env, home)
	if err != nil {
		return nil, err
	}
	st, err := db.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	obs, err := engine.New(engine.Deps{Store: st, Now: cfg.Now})
	if err != nil {
		return nil, errors.Join(err, st.Close())
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), decoder: NewDecoder(DecodeConfig{MaxBody: cfg.MaxBody}),
		db: db, store: st, observer: obs, turns: map[string]*liveTurn{}}
	s.lang = i18n.Lang(cfg.Base.Lang).Normalize()
	s.idle = sync.NewCond(&s.mu)
	s.base, s.stopBase = context.WithCancel(context.WithoutCancel(ctx))
	// A stop asked of another replica reaches this one's turns, from the
	// moment New returns.
	if relay, ok := st.(stopRelay); ok {
		if err := relay.ListenStops(s.base, func(id string) { s.stopLocal(id) }); err != nil {
			s.stopBase()
			return nil, errors.Join(err, st.Close())
		}
	}
	s.follow = NewSessionEvents(SubscriberFunc(s.subscribe), EventsConfig{KeepAlive: cfg.KeepAlive})
	s.routes()
	return s, nil
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.mux.ServeHTTP(w, r)
}

// route registers an authenticated handler: the request's key is checked
// first (401 without a valid one) and given to h through keyOf.
func (s *Server) route(pattern string, h http.HandlerFunc) {
	s.patterns = append(s.patterns, pattern)
	s.mux.Handle(pattern, s.authenticate(h))
}

// public registers a handler that needs no key.
func (s *Server) public(pattern string, h http.Handler) {
	s.patterns = append(s.patterns, pattern)
	s.mux.Handle(pattern, h)
}

// writeJSON sends v as a JSON response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decode reads r's JSON body into dst strictly (see Decoder).
func (s *Server) decode(w http.ResponseWriter, r *http.Request, dst any) error {
	return s.decoder.Decode(w, r, dst)
}

// options are the base options for session id.
func (s *Server) options(id string) app.Options {
	o := s.cfg.Base
	o.SessionID = id
	// One store for every session the server opens: opening it (its
	// migrations, its statements) for each turn would cost more than the
	// turn's own writes.
	o.Store = s.store
	return o
}

// notFoundf is a 404 with code.
func notFoundf(code, format string, args ...any) *Error {
	return apiErrorf(http.StatusNotFound, code, format, args...)
}

// errorf wraps err in an *Error that keeps it as its cause.
func errorf(status int, code string, err error, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}
