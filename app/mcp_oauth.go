package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/mcp/oauth"
	"github.com/moteur/moteur/policy"
)

// mcpTokens is the store of the MCP servers' OAuth tokens, sealed with the
// at-rest key, in the data directory.
func (s *Settings) mcpTokens() (*oauth.Store, error) {
	key, err := atRestKey(s.opts.Env, s.opts.DataDir, true, s.Lang)
	if err != nil {
		return nil, err
	}
	return oauth.NewStore(oauth.StoreConfig{Dir: filepath.Join(s.opts.DataDir, oauth.DirName), Key: key})
}

// oauthCheck is the outbound check of the requests an OAuth flow or an
// authorised MCP connection makes for server sc: each host passes the
// allowlists and the organisation policy of a model provider. Only the
// server's own host counts as local when the server is declared local: an
// authorization server elsewhere is not.
func oauthCheck(out *policy.Outbound, sc mcp.ServerConfig) func(string) error {
	return func(u string) error {
		return out.Check(policy.Destination{Provider: "MCP server " + sc.Name + " (OAuth)", Endpoint: u,
			Local: sc.Local && sameHost(u, sc.URL)}, nil)
	}
}

func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Host, ub.Host)
}

// mcpHTTPClients gives each http or sse server of servers the client of its
// OAuth tokens: it adds the saved token, refreshes it, and turns a 401 it
// cannot fix into an error that tells the user to log in.
func mcpHTTPClients(tokens *oauth.Store, out *policy.Outbound, servers []mcp.ServerConfig) func(mcp.ServerInfo) *http.Client {
	byName := map[string]mcp.ServerConfig{}
	for _, sc := range servers {
		byName[sc.Name] = sc
	}
	return func(info mcp.ServerInfo) *http.Client {
		sc, ok := byName[info.Name]
		if !ok || sc.URL == "" {
			return nil
		}
		c, err := oauth.Client(oauth.ClientConfig{Server: sc.Name, URL: sc.URL, Store: tokens, CheckURL: oauthCheck(out, sc)})
		if err != nil {
			return nil // a plain client: a 401 still says to log in
		}
		return c
	}
}

// LoginMCP runs the OAuth login of the MCP server name (an http or sse
// server of the configuration): it prints the URL to open on out, calls
// openBrowser with it when set, waits for the browser to come back to a
// loopback address, and keeps the tokens, sealed, for the sessions.
func (s *Settings) LoginMCP(ctx context.Context, name string, out io.Writer, openBrowser func(context.Context, string) error) error {
	loaded, err := s.MCPConfig()
	if err != nil {
		return err
	}
	var sc *mcp.ServerConfig
	for i := range loaded.Servers {
		if loaded.Servers[i].Name == name {
			sc = &loaded.Servers[i]
		}
	}
	switch {
	case sc == nil:
		return &translatedError{err: ErrNoSuchMCPServer,
			msg: i18n.Trf(s.Lang, "unknown MCP server: no MCP server %q in %s", name, strings.Join(mcpFiles(s), i18n.Tr(s.Lang, " or ")))}
	case sc.Err != nil:
		return fmt.Errorf("MCP server %q: %w", name, sc.Err)
	case sc.Project && !sc.Trusted:
		return errors.New(i18n.Trf(s.Lang, "MCP server %q is configured in %s, which came with the project and is not trusted yet: "+
			"trust it first (moteur mcp list --trust-project, or a session's question)", name, sc.Source))
	case sc.Transport == mcp.TransportStdio:
		return errors.New(i18n.Trf(s.Lang, "MCP server %q runs as a program (stdio): it has no OAuth login; its credentials come from its env", name))
	}
	check, err := s.outbound()
	if err != nil {
		return err
	}
	tokens, err := s.mcpTokens()
	if err != nil {
		return err
	}
	lc := oauth.LoginConfig{Server: name, URL: sc.URL, Store: tokens, CheckURL: oauthCheck(check, *sc),
		Out: out, OpenBrowser: openBrowser, ClientID: sc.OAuth.ClientID, ClientSecret: sc.OAuth.ClientSecret}
	if sc.OAuth.CallbackPort > 0 {
		lc.RedirectAddr = fmt.Sprintf("127.0.0.1:%d", sc.OAuth.CallbackPort)
	}
	return oauth.Login(ctx, lc)
}

// ErrNoSuchMCPServer: the configuration names no MCP server of that name.
var ErrNoSuchMCPServer = errors.New("unknown MCP server")

// mcpFiles are the files MCP servers are configured in.
func mcpFiles(s *Settings) []string {
	files := []string{filepath.Join(s.opts.ProjectRoot, mcp.ProjectFileName)}
	if f := MCPUserFile(s.opts.Env); f != "" {
		files = append(files, f)
	}
	return files
}
