package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/policy"
)

// MCPUserFile is the user's own MCP configuration, in the mcpServers shape
// other tools write: $XDG_CONFIG_HOME/moteur/mcp.json ("" when no user
// configuration directory is known).
func MCPUserFile(env func(string) string) string {
	dir := userConfigDir(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "mcp.json")
}

// TrustFile is where the project files the user trusted are remembered
// (a .mcp.json, a project configuration's hooks), per project and content
// hash, in the user's data directory home.
func TrustFile(home string) string { return filepath.Join(home, "trust.json") }

// TrustRequest describes what came with a project and runs programs — its
// .mcp.json servers, its configuration's hooks — that the user has not
// trusted yet: what trusting it would run.
type TrustRequest struct {
	// Path is the file; What, what it holds ("MCP servers", "hooks").
	Path, What string
	SHA256     string
	// Items are one line each: a server and what runs or is reached, a
	// hook's event and command.
	Items []string
}

// trustStore is the user's record of trusted project files.
func (s *Settings) trustStore() *mcp.TrustStore {
	return mcp.NewTrustStore(mcp.TrustStoreConfig{Path: TrustFile(s.opts.DataDir), Now: s.opts.Now})
}

// confirmTrust says whether to trust req: Options.TrustProject, else
// Options.ConfirmTrust's answer, else no.
func (s *Settings) confirmTrust(req TrustRequest) (bool, error) {
	if s.opts.TrustProject {
		return true, nil
	}
	if s.opts.ConfirmTrust == nil {
		return false, nil
	}
	ok, err := s.opts.ConfirmTrust(req)
	if err != nil {
		return false, fmt.Errorf("trust %s: %w", req.Path, err)
	}
	return ok, nil
}

// MCPConfig reads the session's MCP servers: the user's file, then the
// project's .mcp.json, whose servers are started only once the user has
// trusted its content. With Options.TrustProject, or when
// Options.ConfirmTrust says yes, an untrusted project file is trusted as it
// is now and remembered. Files that cannot be read are in the result's
// Errors; the other file's servers still count.
func (s *Settings) MCPConfig() (mcp.Loaded, error) {
	o := s.opts
	store := s.trustStore()
	lookup := func(name string) (string, bool) {
		v := o.Env(name)
		return v, v != ""
	}
	load := func() mcp.Loaded {
		return mcp.Load(mcp.LoadConfig{ProjectRoot: o.ProjectRoot, UserFile: MCPUserFile(o.Env), Trust: store, LookupEnv: lookup})
	}
	loaded := load()
	pf := loaded.Project
	if pf == nil || pf.Trusted {
		return loaded, nil
	}
	trust, err := s.confirmTrust(projectMCP(pf, loaded.Servers))
	if err != nil || !trust {
		return loaded, err
	}
	if err := store.Trust(pf.Root, pf.SHA256); err != nil {
		return mcp.Loaded{}, fmt.Errorf("trust %s: %w", pf.Path, err)
	}
	// Read again: what is trusted is the content whose hash was shown;
	// a file changed since is still untrusted.
	return load(), nil
}

// projectMCP is what trusting pf would start.
func projectMCP(pf *mcp.ProjectFile, servers []mcp.ServerConfig) TrustRequest {
	out := TrustRequest{Path: pf.Path, What: "MCP servers", SHA256: pf.SHA256}
	for _, sc := range servers {
		if !sc.Project || sc.Disabled {
			continue
		}
		what := sc.URL
		if sc.Transport == mcp.TransportStdio {
			what = strings.Join(append([]string{sc.Command}, sc.Args...), " ")
		}
		out.Items = append(out.Items, fmt.Sprintf("%s (%s): %s", sc.Name, sc.Transport, what))
	}
	return out
}

// startMCP starts the servers of loaded for a session, in parallel, each
// within its start-up timeout; those that fail are reported by the
// manager (McpServerDown) and the session goes on without them. nil when
// no server is configured.
func (s *Settings) startMCP(ctx context.Context, loaded mcp.Loaded) (*mcp.Manager, error) {
	if len(loaded.Servers) == 0 {
		return nil, nil
	}
	out, err := s.outbound()
	if err != nil {
		return nil, err
	}
	o := s.opts
	lookup := func(name string) (string, bool) {
		v := o.Env(name)
		return v, v != ""
	}
	cfg := mcp.ManagerConfig{Servers: loaded.Servers, Guard: mcpGuard{out: out}, LookupEnv: lookup, WorkDir: o.ProjectRoot}
	if remote(loaded.Servers) {
		tokens, err := s.mcpTokens()
		if err != nil {
			return nil, err
		}
		cfg.HTTPClient = mcpHTTPClients(tokens, out, loaded.Servers)
	}
	return mcp.Start(ctx, cfg)
}

// remote reports whether any of servers is reached over HTTP.
func remote(servers []mcp.ServerConfig) bool {
	for _, sc := range servers {
		if sc.Transport != mcp.TransportStdio {
			return true
		}
	}
	return false
}

// mcpGuard is the outbound check of what reaches MCP servers: the host of
// an http or sse server passes the same allowlists and organisation policy
// as a model provider's, before any connection, and the arguments sent to
// a server not declared local pass the classification check of a model
// request.
type mcpGuard struct{ out *policy.Outbound }

func (g mcpGuard) CheckEndpoint(server mcp.ServerInfo, url string) error {
	return g.out.Check(policy.Destination{Provider: "MCP server " + server.Name, Endpoint: url, Local: server.Local}, nil)
}

// CheckArguments refuses, for a server not declared local, arguments that
// carry a marking, as the outbound check refuses a model request. The
// refusal names the rule, not the marking: it becomes the call's result,
// which the model reads, and quoting the marking there would put it in the
// session's next request.
func (g mcpGuard) CheckArguments(server mcp.ServerInfo, tool string, args json.RawMessage) error {
	if server.Local {
		return nil
	}
	if m, ok := g.out.Classify(string(args)); ok {
		return &policy.Refusal{Rule: "classification (" + m.Rule + ")",
			Reason: fmt.Sprintf("the arguments of %s carry a protection marking, which may only go to a server declared \"local\": true, and MCP server %s is not", tool, server.Name)}
	}
	return nil
}

// MCPServerStatus is one server of an MCPReport.
type MCPServerStatus = mcp.ServerStatus

// MCPReport is what `moteur mcp list` shows: every configured server and
// where it stands, with what the configuration files said.
type MCPReport struct {
	Servers []MCPServerStatus `json:"servers"`
	// Project is the project's .mcp.json, when there is one.
	Project *mcp.ProjectFile `json:"project,omitempty"`
	// Warnings and Errors are the files': unknown keys, a name defined
	// twice; a file that cannot be read or parsed (file, line, key).
	Warnings []string `json:"warnings,omitempty"`
	Errors   []string `json:"errors,omitempty"`
}

// ListMCP starts the servers the settings may start (the user's, and the
// project's once trusted), as a session would, describes every configured
// one, and stops them.
func (s *Settings) ListMCP(ctx context.Context) (MCPReport, error) {
	loaded, err := s.MCPConfig()
	if err != nil {
		return MCPReport{}, err
	}
	rep := MCPReport{Project: loaded.Project, Warnings: loaded.Warnings}
	for _, e := range loaded.Errors {
		rep.Errors = append(rep.Errors, e.Error())
	}
	m, err := s.startMCP(ctx, loaded)
	if err != nil {
		return MCPReport{}, err
	}
	if m == nil {
		return rep, nil
	}
	rep.Servers = m.Status()
	return rep, m.Close()
}

// openMCP starts the session's MCP servers and gives the model their
// tools (directly, or through discover_mcp_tools and call_mcp_tool above
// the configuration's catalog threshold); deps gets the servers for
// SessionStarted and the McpServerDown events after it. What the files
// said (a server defined twice, a file that does not parse) is a warning:
// the session goes on without what cannot be used.
func (ses *Session) openMCP(ctx context.Context, blobs effect.Blobs, deps *engine.Deps) error {
	s := ses.Settings
	loaded, err := s.MCPConfig()
	if err != nil {
		return err
	}
	for _, w := range loaded.Warnings {
		ses.warn("MCP: " + w)
	}
	for _, e := range loaded.Errors {
		ses.warn("MCP: " + e.Error())
	}
	loaded.Servers = ses.agentServers(loaded.Servers)
	if ses.mcp, err = s.startMCP(ctx, loaded); err != nil || ses.mcp == nil {
		return err
	}
	set, err := mcp.NewToolSet(ses.mcp, mcp.ToolSetConfig{CatalogThreshold: s.Config.MCPCatalogThreshold, Blobs: blobs,
		Warn: func(err error) { s.notify("MCP: " + err.Error()) }})
	if err != nil {
		return err
	}
	if err := ses.tools.reg.AddGroup(set); err != nil {
		return err
	}
	deps.MCP, deps.UnavailableMCP = ses.mcp.Connected(), ses.mcp.Down()
	return nil
}

// agentServers are the servers of the agent's MCP selection among
// servers (all of them without an agent); a server it names that is not
// configured is a warning.
func (ses *Session) agentServers(servers []mcp.ServerConfig) []mcp.ServerConfig {
	a := ses.Settings.agent
	keep, ok := agentMCP(a)
	if a == nil || !ok {
		return servers
	}
	var out []mcp.ServerConfig
	for _, sc := range servers {
		if keep(sc.Name) {
			out = append(out, sc)
		}
	}
	for _, name := range a.Config.MCPServices {
		if a.Config.MCPSelectionMode == agentconfig.SelectSelected &&
			!slices.ContainsFunc(servers, func(sc mcp.ServerConfig) bool { return sc.Name == name }) {
			ses.warn(i18n.Trf(ses.Settings.Lang, "MCP: agent %s: server %s is not configured", agentName(a), name))
		}
	}
	return out
}

// notify passes a line to Options.Notify.
func (s *Settings) notify(line string) {
	if s.opts.Notify != nil {
		s.opts.Notify(line)
	}
}
