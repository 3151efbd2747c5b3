// Command conformanceauth is a client for the auth scenarios of the MCP
// conformance suite (@modelcontextprotocol/conformance): it logs in with
// package oauth exactly as `moteur mcp login` does (the browser step is an
// http.Client following the authorization URL, as the suite's
// authorization servers approve at once), then connects through
// oauth.Client, lists the tools and calls test-tool.
//
// Usage (by the suite): MCP_CONFORMANCE_SCENARIO=auth/… conformanceauth URL
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/mcp/oauth"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceauth SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, os.Args[1], os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceauth:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, serverURL, confCtx string) error {
	var cc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if confCtx != "" {
		if err := json.Unmarshal([]byte(confCtx), &cc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "conformanceauth-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	raw := make([]byte, atrest.Size)
	_, _ = rand.Read(raw)
	key, err := atrest.New(raw)
	if err != nil {
		return err
	}
	store, err := oauth.NewStore(oauth.StoreConfig{Dir: dir, Key: key})
	if err != nil {
		return err
	}
	login := oauth.LoginConfig{
		Server: name, URL: serverURL, Store: store, CheckURL: loopbackOnly, Out: os.Stderr,
		OpenBrowser:       approve,
		ClientID:          cc.ClientID,
		ClientSecret:      cc.ClientSecret,
		ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
	}
	// What `moteur mcp login` and a session do, in one program: log in,
	// use the server, and when it needs a new login (a step-up to more
	// scopes), log in again — at most maxLogins times in all.
	var err2 error
	for range maxLogins {
		if err := oauth.Login(ctx, login); err != nil {
			return err
		}
		err2 = use(ctx, serverURL, store)
		if !errors.Is(err2, oauth.ErrLoginRequired) {
			return err2
		}
		fmt.Fprintln(os.Stderr, "conformanceauth:", err2)
	}
	return err2
}

// maxLogins bounds the logins of one run (the suite's scope-retry-limit).
const maxLogins = 3

const name = "conformance"

// use connects through oauth.Client, lists the tools and calls test-tool.
func use(ctx context.Context, serverURL string, store *oauth.Store) error {
	hc, err := oauth.Client(oauth.ClientConfig{Server: name, URL: serverURL, Store: store, CheckURL: loopbackOnly})
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "moteur-conformance-auth", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: serverURL, HTTPClient: hc}, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer s.Close()
	if _, err := s.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "test-tool", Arguments: map[string]any{}}); err != nil {
		return fmt.Errorf("tools/call test-tool: %w", err)
	}
	return nil
}

// loopbackOnly is the outbound check: the suite runs every server on
// localhost.
func loopbackOnly(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	switch p.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return nil
	}
	return fmt.Errorf("%s is not a loopback host", p.Hostname())
}

// approve plays the user's browser: it asks for the authorization URL and
// follows the redirect to the loopback callback.
func approve(ctx context.Context, authURL string) error {
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}
