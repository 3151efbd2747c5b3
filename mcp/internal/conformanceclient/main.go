// Command conformanceclient is Moteur's MCP client as the official
// conformance suite (@modelcontextprotocol/conformance) drives it: the
// suite runs it with the server's URL as its argument, the scenario's name
// in MCP_CONFORMANCE_SCENARIO and the scenario's data, as JSON, in
// MCP_CONFORMANCE_CONTEXT. It connects through package mcp's Manager, as a
// session does, and never through a bare SDK client.
//
// Adding a scenario is one entry in the scenarios table. A scenario that
// needs OAuth sets auth: the program then takes its HTTP client from
// oauthClient, which the OAuth layer provides (in a file of its own here,
// oauth.go, setting oauthClient in an init) from the scenario's context;
// without one an auth scenario fails saying so.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/mcp"
)

// scenario is what the client does in one conformance scenario.
type scenario struct {
	// auth: the server requires OAuth (see oauthClient).
	auth bool
	// elicit answers the server's elicitation requests; nil declines the
	// capability.
	elicit func(context.Context, mcp.ServerInfo, *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error)
	// run does the scenario's requests once connected.
	run func(ctx context.Context, m *mcp.Manager, cfg map[string]any) error
}

// scenarios are the client scenarios this program passes; the test in
// this directory runs each of them.
var scenarios = map[string]scenario{
	"initialize":                          {run: listTools},
	"tools_call":                          {run: call("add_numbers", `{"a":5,"b":3}`)},
	"elicitation-sep1034-client-defaults": {elicit: acceptWithDefaults, run: call("test_client_elicitation_defaults", `{}`)},
	"sse-retry":                           {run: call("test_reconnection", `{}`)},
}

// oauthClient, set by the OAuth layer, gives the HTTP client of an auth
// scenario from the scenario's context (client_id, client_secret, …).
var oauthClient func(cfg map[string]any) func(mcp.ServerInfo) *http.Client

const serverName = "conformance"

func main() {
	if len(os.Args) != 2 {
		fail("usage: conformanceclient SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)")
	}
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	sc, ok := scenarios[name]
	if !ok {
		fail("unknown scenario %q", name)
	}
	var cfg map[string]any
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
			fail("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := runScenario(ctx, sc, os.Args[1], cfg); err != nil {
		fail("scenario %s: %v", name, err)
	}
}

func runScenario(ctx context.Context, sc scenario, url string, cfg map[string]any) error {
	mc := mcp.ManagerConfig{
		Servers: []mcp.ServerConfig{{
			Name: serverName, Transport: mcp.TransportHTTP, URL: url, Source: "conformance", Trusted: true,
		}},
		// The suite's servers are on loopback and receive nothing secret.
		Guard:      mcp.AllowAll{},
		Elicit:     sc.elicit,
		ClientName: "moteur-conformance",
	}
	if sc.auth {
		if oauthClient == nil {
			return fmt.Errorf("an OAuth scenario, and no OAuth client is built in")
		}
		mc.HTTPClient = oauthClient(cfg)
	}
	m, err := mcp.Start(ctx, mc)
	if err != nil {
		return err
	}
	defer m.Close()
	for _, st := range m.Status() {
		if st.State != mcp.StateConnected {
			return fmt.Errorf("not connected: %s: %s", st.State, st.Error)
		}
	}
	return sc.run(ctx, m, cfg)
}

func listTools(_ context.Context, m *mcp.Manager, _ map[string]any) error {
	if m.ServerTools(serverName) == nil { // nil: not connected; empty: no tools
		return fmt.Errorf("no tools listed")
	}
	return nil
}

func call(tool, args string) func(context.Context, *mcp.Manager, map[string]any) error {
	return func(ctx context.Context, m *mcp.Manager, _ map[string]any) error {
		res, err := m.CallTool(ctx, serverName, tool, json.RawMessage(args))
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s returned an error result: %v", tool, res.Content)
		}
		return nil
	}
}

// acceptWithDefaults accepts with no content of its own, so that the
// schema's defaults apply (SEP-1034).
func acceptWithDefaults(context.Context, mcp.ServerInfo, *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error) {
	return &mcpsdk.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "conformanceclient: "+format+"\n", a...)
	os.Exit(1)
}
