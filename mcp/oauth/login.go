package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// DefaultLoginTimeout bounds a whole login, the user's time in the browser
// included.
const DefaultLoginTimeout = 5 * time.Minute

// LoginConfig configures Login. Server, URL, Store and CheckURL are
// required; the other zero values are the defaults.
type LoginConfig struct {
	// Server is the server's name in mcpServers, URL its MCP endpoint.
	Server string
	URL    string
	// Store keeps the tokens obtained.
	Store *Store
	// CheckURL is the outbound check (allowlist, organisation policy): every
	// request (the server, the metadata URLs, registration, token endpoint,
	// each redirect) passes it before any connection, and the authorization
	// URL before it is printed. A nil CheckURL refuses everything.
	CheckURL func(string) error
	// Out receives the URL to open and the outcome; nil is os.Stderr.
	Out io.Writer
	// OpenBrowser, if set, is called with the authorization URL once it is
	// printed (OpenSystemBrowser, for a terminal); its failure is printed
	// and the login goes on. Nil opens nothing.
	OpenBrowser func(ctx context.Context, url string) error
	// ClientID (and ClientSecret, for a confidential client) of a client
	// registered beforehand with the authorization server. Empty: Moteur
	// registers itself dynamically (RFC 7591).
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is an HTTPS URL of a client ID metadata document,
	// used when the authorization server supports them; empty: none.
	ClientMetadataURL string
	// Scopes, if set, are requested instead of those the server advertises.
	Scopes []string
	// RedirectAddr is where the loopback redirect listens: a loopback IP
	// and a port ("127.0.0.1:8976", for a client registered with a fixed
	// redirect URI). Empty is 127.0.0.1 and a port the system picks.
	RedirectAddr string
	// Timeout bounds the whole login; zero is DefaultLoginTimeout.
	Timeout time.Duration
	// ClientName is the name registered dynamically; empty is "Moteur".
	ClientName string
	// Base sends the requests; nil is http.DefaultTransport.
	Base http.RoundTripper
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (cfg *LoginConfig) defaults() error {
	if cfg.Server == "" {
		return errors.New("no server name given")
	}
	if _, err := parseServerURL(cfg.URL); err != nil {
		return err
	}
	if cfg.Store == nil {
		return errors.New("no token store given")
	}
	if cfg.Out == nil {
		cfg.Out = os.Stderr
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultLoginTimeout
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "Moteur"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return nil
}

// Login runs the authorization code flow for one server and saves the
// tokens: it asks the server (which must answer 401), discovers its
// authorization server, registers a client when no ClientID is configured,
// prints the authorization URL, waits for the browser on the loopback
// redirect, checks the state, exchanges the code with the PKCE verifier and
// saves the tokens sealed in the store. The protocol is the go-sdk's
// auth.AuthorizationCodeHandler.
func Login(ctx context.Context, cfg LoginConfig) error {
	if err := cfg.defaults(); err != nil {
		return fmt.Errorf("MCP login: %w", err)
	}
	l := &login{cfg: cfg}
	if err := l.run(ctx); err != nil {
		return fmt.Errorf("MCP login to %q: %w", cfg.Server, err)
	}
	return nil
}

// login is the state of one Login.
type login struct {
	cfg    LoginConfig
	client *http.Client
	cb     *callback

	wantScopes []string       // asked for by the server since the last login
	waiting    bool           // the browser step has begun
	oauth      *oauth2.Config // as the handler resolved it
	token      *oauth2.Token
	authURL    *url.URL
}

func (l *login) run(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, l.cfg.Timeout)
	defer cancel()
	var err error
	if l.cb, err = listenLoopback(l.cfg.Server, l.cfg.RedirectAddr); err != nil {
		return err
	}
	defer l.cb.ln.Close()
	l.client = &http.Client{Transport: &checkedTransport{check: l.cfg.CheckURL, base: baseTransport(l.cfg.Base)}}
	if prev, err := l.cfg.Store.load(l.cfg.Server, l.cfg.URL); err == nil && len(prev.WantScopes) > 0 {
		// Keep what was granted: a step-up must not lose permissions.
		l.wantScopes = unionScopes(prev.Scopes, prev.WantScopes)
	}

	req, resp, err := l.probe(ctx)
	if err != nil {
		return l.explain(ctx, parent, err)
	}
	h, err := auth.NewAuthorizationCodeHandler(l.handlerConfig())
	if err != nil {
		resp.Body.Close()
		return err
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return l.explain(ctx, parent, err)
	}
	g, err := l.grant()
	if err != nil {
		return err
	}
	if err := l.cfg.Store.save(g); err != nil {
		return err
	}
	l.report(g)
	return nil
}

func (l *login) handlerConfig() *auth.AuthorizationCodeHandlerConfig {
	redirect := l.cb.redirectURL()
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: l.fetch,
		RequestRefreshToken:      true, // the store keeps it sealed
		Client:                   l.client,
		NewTokenSource: func(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			l.oauth, l.token = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if l.cfg.ClientMetadataURL != "" {
		hc.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: l.cfg.ClientMetadataURL}
	}
	if l.cfg.ClientID != "" {
		pre := &oauthex.ClientCredentials{ClientID: l.cfg.ClientID}
		if l.cfg.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: l.cfg.ClientSecret}
		}
		hc.PreregisteredClient = pre
	} else {
		hc.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{redirect},
				ClientName:              l.cfg.ClientName,
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none", // a native app is a public client (RFC 8252 §8.4)
			},
		}
	}
	switch {
	case len(l.cfg.Scopes) > 0:
		scopes := l.cfg.Scopes
		hc.ScopeFilter = func([]string) []string { return scopes }
	case len(l.wantScopes) > 0:
		// A server asked for more (403 insufficient_scope): ask for what
		// it advertises and that (step-up).
		want := l.wantScopes
		hc.ScopeFilter = func(discovered []string) []string { return unionScopes(discovered, want) }
	}
	return hc
}

// fetch is the handler's browser step: check and print the URL, open the
// browser if configured, and wait for the redirect.
func (l *login) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(args.URL)
	if err != nil {
		return nil, fmt.Errorf("authorization URL: %w", err)
	}
	if err := checkURL(l.cfg.CheckURL, args.URL); err != nil {
		return nil, err
	}
	l.authURL = u
	l.waiting = true
	res, err := l.cb.wait(ctx, u.Query().Get("state"), func() {
		out := l.cfg.Out
		fmt.Fprintf(out, "To log in to MCP server %q (%s), open this URL in a browser:\n\n  %s\n\n", l.cfg.Server, redactURL(l.cfg.URL), args.URL)
		if l.cfg.OpenBrowser != nil {
			if err := l.cfg.OpenBrowser(ctx, args.URL); err != nil {
				fmt.Fprintf(out, "(Could not open a browser: %v. Open the URL yourself.)\n", err)
			}
		}
		fmt.Fprintf(out, "Waiting for the browser to come back to %s (up to %s)…\n", l.cb.redirectURL(), l.cfg.Timeout)
	})
	if err == nil {
		l.waiting = false // the rest is between Moteur and the servers
	}
	return res, err
}

// grant is what the handler obtained, ready to save.
func (l *login) grant() (*grant, error) {
	if l.token == nil || l.oauth == nil || l.token.AccessToken == "" {
		return nil, errors.New("the authorization server gave no access token")
	}
	if tt := l.token.TokenType; tt != "" && !strings.EqualFold(tt, "bearer") {
		return nil, fmt.Errorf("the authorization server gave a token of type %q; only Bearer is supported", tt)
	}
	g := &grant{
		Server:       l.cfg.Server,
		URL:          l.cfg.URL,
		AccessToken:  l.token.AccessToken,
		TokenType:    l.token.TokenType,
		RefreshToken: l.token.RefreshToken,
		Expiry:       l.token.Expiry,
		Scopes:       l.oauth.Scopes,
		ClientID:     l.oauth.ClientID,
		ClientSecret: l.oauth.ClientSecret,
		AuthStyle:    int(l.oauth.Endpoint.AuthStyle),
		TokenURL:     l.oauth.Endpoint.TokenURL,
		Saved:        l.cfg.Now(),
	}
	if s, ok := l.token.Extra("scope").(string); ok && s != "" {
		g.Scopes = strings.Fields(s)
	}
	if l.authURL != nil {
		// The resource the code was issued for: a refresh asks for the same.
		g.Resource = l.authURL.Query().Get("resource")
	}
	return g, nil
}

func (l *login) report(g *grant) {
	out := l.cfg.Out
	fmt.Fprintf(out, "Logged in to MCP server %q.", l.cfg.Server)
	if len(g.Scopes) > 0 {
		fmt.Fprintf(out, " Scopes: %s.", strings.Join(g.Scopes, " "))
	}
	fmt.Fprintln(out)
	switch {
	case g.Expiry.IsZero():
		fmt.Fprintln(out, "The access token has no stated expiry.")
	case g.RefreshToken != "":
		fmt.Fprintf(out, "The access token expires at %s and will be refreshed as needed.\n", g.Expiry.Local().Format("2006-01-02 15:04"))
	default:
		fmt.Fprintf(out, "The access token expires at %s; there is no refresh token, so log in again then.\n", g.Expiry.Local().Format("2006-01-02 15:04"))
	}
	fmt.Fprintf(out, "Tokens saved, encrypted, in %s.\n", l.cfg.Store.Path(g.Server, g.URL))
}

// explain turns the end of the login's own deadline into a clear message;
// other errors are returned as they are.
func (l *login) explain(ctx, parent context.Context, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("login cancelled: %w", parent.Err())
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if l.cfg.ClientID == "" && strings.Contains(err.Error(), "no configured client registration methods") {
			return fmt.Errorf("%w; the authorization server offers no dynamic client registration: register Moteur there as a client (redirect URI http://127.0.0.1:PORT/callback, with a fixed port) and configure its client id", err)
		}
		return err
	}
	if l.waiting {
		return fmt.Errorf("%w: no answer from the browser within %s; open the URL printed above and finish signing in, or run `moteur mcp login %s` again", ErrLoginTimeout, l.cfg.Timeout, l.cfg.Server)
	}
	return fmt.Errorf("%w: the servers did not answer within %s: %w", ErrLoginTimeout, l.cfg.Timeout, err)
}
