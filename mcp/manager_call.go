package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/tools"
)

// newClient is the SDK client of one connection: its handlers know the
// server and the connection they serve.
func (m *Manager) newClient(s *server, c *conn) *mcpsdk.Client {
	opts := &mcpsdk.ClientOptions{
		Logger: m.cfg.Logger,
		ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) {
			s.onListChanged(c)
		},
		ProgressNotificationHandler: m.onProgress,
	}
	if len(m.cfg.Roots) == 0 {
		// No roots capability: the SDK's default would announce an empty
		// list, which a server such as server-filesystem takes as "no
		// directory allowed".
		opts.Capabilities = &mcpsdk.ClientCapabilities{}
	}
	if m.cfg.Elicit != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcpsdk.ElicitRequest) (*mcpsdk.ElicitResult, error) {
			return m.cfg.Elicit(ctx, s.info, req)
		}
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: m.cfg.ClientName, Version: m.cfg.ClientVersion}, opts)
	for _, r := range m.cfg.Roots {
		//lint:ignore SA1019 roots are deprecated in 2026-07-28 but what servers of the earlier versions read
		client.AddRoots(&mcpsdk.Root{URI: r})
	}
	return client
}

// onProgress forwards a server's progress to the call it belongs to.
func (m *Manager) onProgress(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
	p := req.Params
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if v, ok := m.progress.Load(token); ok {
		tools.ReportProgress(v.(context.Context), tools.Progress{Message: p.Message, Done: p.Progress, Total: p.Total})
	}
}

// CallTool calls a tool of a server. Arguments must be a JSON object
// (empty means {}). For a server not declared local the Guard checks them
// first, and nothing is sent when it refuses. The server's progress
// reaches tools.ReportProgress(ctx) (the SDK queues notifications apart
// from results, so one sent just before the result may arrive after it
// and is then dropped); cancelling ctx cancels the request
// (the SDK sends notifications/cancelled). A server that stopped is
// restarted first; one that stops during the call fails it with an error
// wrapping ErrServerDown. A 401 gives an error wrapping ErrLoginRequired.
// A result with IsError set is a result, not an error.
func (m *Manager) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcpsdk.CallToolResult, error) {
	s, err := m.lookup(server)
	if err != nil {
		return nil, err
	}
	args, err = objectArgs(args)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q, tool %q: %w", server, tool, err)
	}
	if err := m.checkArguments(s, tool, args); err != nil {
		return nil, err
	}
	c, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := c.callContext(ctx)
	defer cancel()
	token := "moteur-" + strconv.FormatUint(m.tokenSeq.Add(1), 10)
	m.progress.Store(token, ctx)
	defer m.progress.Delete(token)

	params := &mcpsdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(token)
	res, err := c.session.CallTool(callCtx, params)
	if err != nil {
		return nil, c.callError(ctx, "tools/call "+tool, err)
	}
	return res, nil
}

// ReadResource reads a resource of a server (a resource link in a tool's
// result). The URI goes to the server, so for a server not declared local
// the Guard checks it as the arguments of "resources/read".
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*mcpsdk.ReadResourceResult, error) {
	s, err := m.lookup(server)
	if err != nil {
		return nil, err
	}
	args, _ := json.Marshal(map[string]string{"uri": uri})
	if err := m.checkArguments(s, "resources/read", args); err != nil {
		return nil, err
	}
	c, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := c.callContext(ctx)
	defer cancel()
	res, err := c.session.ReadResource(callCtx, &mcpsdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, c.callError(ctx, "resources/read", err)
	}
	return res, nil
}

func (m *Manager) checkArguments(s *server, tool string, args json.RawMessage) error {
	if s.info.Local {
		return nil
	}
	if err := m.cfg.Guard.CheckArguments(s.info, tool, args); err != nil {
		return fmt.Errorf("MCP server %q, %s: not sent: %w", s.info.Name, tool, err)
	}
	return nil
}

var errArgsNotObject = errors.New("arguments must be a JSON object")

// objectArgs checks that args is one JSON object; empty is {}.
func objectArgs(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errArgsNotObject
	}
	return json.RawMessage(trimmed), nil
}
