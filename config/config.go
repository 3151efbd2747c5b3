// Package config reads Moteur's configuration and merges its layers into
// one Config: the user's file, then the project's file on top, then the
// model named by the environment, then the organisation policy on top of
// everything, which nothing loosens.
//
// DESIGN places configuration in cmd/moteur; it lives in its own package
// instead so that the merge — the part that decides which providers may
// receive data and which rules apply — is tested without the CLI.
//
// The merge, layer by layer:
//
//   - user file ($XDG_CONFIG_HOME/moteur/config.yaml), then project file
//     (<root>/.moteur/config.yaml). The project file comes with the code —
//     a repository just cloned — so it is trusted to tighten what the user
//     set, never to loosen it nor to reach the user's credentials:
//   - scalars: profile and mode — the project's applies only when equal or
//     stricter (profile standard < restricted < airgapped; mode auto_write
//     < confirm < read_only); a looser one is ignored and reported in
//     Config.Notices. lang — the project's wins.
//   - providers: a project that lists providers replaces the user's list.
//     A project provider with api_key_env gets its key only when the
//     user's own file declares a provider with the same scheme, host and
//     port and the same api_key_env: otherwise Load fails, since the
//     project would be sending the user's key to a host of its choosing
//     (the user consents by declaring that provider in their own file).
//     The same holds for a project's embedding or rerank api_key_env, at
//     the server it would go to. A project provider may be local: true
//     only on a loopback, localhost or private-range address, since local
//     providers receive classified content; the user's file may mark any
//     host local.
//   - permissions allow/ask/deny, classify paths/markings and allowlist —
//     concatenated, user's first, so a project can add deny rules but
//     never remove one (allowlists are also kept one per file, and a
//     provider must be in each: a project's allowlist narrows the user's,
//     never widens it). The allow rules a project adds are kept (a deny
//     still wins) and listed in Config.Notices, so that the user sees what
//     a cloned repository grants.
//   - classify case_insensitive — any file may turn it on, and then no file
//     turns it off (a project's false is ignored and reported in Notices):
//     matching in any case only ever finds more.
//   - embedding, rerank — a project's section replaces the user's whole
//     section, so that a base_url and the api_key_env meant for it are
//     never split across files.
//   - MOTEUR_BASE_URL + MOTEUR_MODEL (+ MOTEUR_API_KEY; OPENAI_BASE_URL,
//     OPENAI_MODEL, OPENAI_API_KEY as fallbacks) define one more provider,
//     placed first.
//   - the organisation policy: a forced profile replaces the configured one;
//     the mode is raised to min_mode when looser; denied_tools become deny
//     rules; allowed_hosts restrict every provider.
//
// Every provider is then checked against the policy, the profile and the
// allowlists, the same checks policy.Outbound makes before each send: a
// provider that could never be used is an error at Load, naming it, its host
// and the rule, rather than silently dropped or refused at every turn.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/kb/retrieval"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
)

// Provider is a resolved model provider.
type Provider struct {
	Name      string
	BaseURL   string
	APIKeyEnv string
	Model     string
	// ContextWindow in tokens; 0: the engine's default.
	ContextWindow int
	// Local: may receive classified content (see FileProvider.Local).
	Local bool
	// NoThinking is a JSON object to merge into request bodies to switch
	// reasoning off; nil when not configured.
	NoThinking json.RawMessage
	// ReasoningEfforts are the reasoning efforts the model accepts
	// (reasoning_efforts); nil: the client's defaults.
	ReasoningEfforts []string
	// APIKey is resolved by Load from the variable APIKeyEnv names, never
	// read from a file; empty when the variable is unset (a server that
	// needs none, or a mistake the provider reports on first use).
	APIKey string
	// Source says where the provider was defined: a file path, or
	// "$MOTEUR_BASE_URL" / "$OPENAI_BASE_URL".
	Source string
}

// Host is the host (with port, if any) of the provider's base URL.
func (p Provider) Host() string { return hostOf(p.BaseURL) }

// Endpoint is a resolved embedding or rerank server. When the file gives no
// base_url, BaseURL, APIKeyEnv and APIKey are the first provider's; a
// base_url of its own takes only its own api_key_env, so that no key goes to
// a host it was not given for. Zero when not configured.
type Endpoint struct {
	Model     string
	BaseURL   string
	APIKeyEnv string
	APIKey    string
}

// Config is the merged configuration.
type Config struct {
	Profile profile.Profile
	// Mode is the access mode; auto_write (the specification's default)
	// when no layer sets one.
	Mode policy.Mode
	// Lang is "fr", "en", or "" when no file sets it (the caller applies
	// its flag, MOTEUR_LANG, then French).
	Lang string
	// Providers in order of preference; the first is the default.
	Providers []Provider
	// Allowlist is the user's and the project's allowlists concatenated,
	// for display. Enforcement takes Allowlists.
	Allowlist hostmatch.List
	// Allowlists are the non-empty allowlists one per file (user, project),
	// as policy.OutboundConfig.Allowlists wants them: a destination must be
	// in every one, so a project's allowlist narrows the user's and never
	// widens it.
	Allowlists []hostmatch.List
	// Permissions: user's rules, then the project's, then the organisation
	// policy's denied tools as deny rules.
	Permissions      policy.Rules
	ClassifyPaths    []string
	ClassifyMarkings []string
	Embedding        Endpoint
	// Web is the user's web: section; nil when there is none (see Web).
	Web *Web
	// Database is where the data is kept: $MOTEUR_DATABASE_URL, else the
	// user's database: section, else the data directory's SQLite file.
	Database Database
	Rerank   Endpoint
	// ClassifyCaseInsensitive: markings match in any case. Any file may
	// set it; once set, a later file cannot unset it.
	ClassifyCaseInsensitive bool
	// Retrieval is the knowledge-base search settings, the files' fields
	// over the defaults (validated).
	Retrieval retrieval.Settings
	// AgentsMaxDepth is the last file's agents.max_depth (0: 1).
	AgentsMaxDepth int
	// SkillSelection and SkillsSelected are the last file's skills:
	// choice ("": all).
	SkillSelection string
	SkillsSelected []string
	// MCPCatalogThreshold is the last file's mcp.catalog_threshold (0: the
	// default).
	MCPCatalogThreshold int
	// Hooks are the files' hooks: sections, user's first, for hooks.New
	// (hooks.Config.Sources). A project file's are marked Project: they
	// run only once the user has trusted them (hooks.Set.TrustedBy).
	Hooks []hooks.Source
	// Policy is the organisation policy applied; nil when there is none.
	Policy *orgpolicy.Policy
	// Sources are the files that were read, in the order they apply (user,
	// project, organisation policy), for diagnostics.
	Sources []string
	// Notices are what the project file tried or added that the user should
	// know of, one line each, to show at startup: a looser profile or mode
	// it asked for and did not get, the allow rules it adds. Never secrets.
	Notices []string

	allowlistFrom []string // the file of each of Allowlists, for messages

	// Set by merge for the checks of project endpoints' keys in Load.
	userFile      string              // the user's file, "" when none was read
	keyConsent    map[string]struct{} // consentKey of the user's declarations
	embeddingFrom string              // the project file of Embedding, if from one
	rerankFrom    string              // the project file of Rerank, if from one
}

// ClassifyRules are the classification rules of the configuration, as
// package classify compiles them.
func (c *Config) ClassifyRules() classify.Rules {
	return classify.Rules{Paths: c.ClassifyPaths, Markings: c.ClassifyMarkings, CaseInsensitive: c.ClassifyCaseInsensitive}
}

// defaultPolicyPath is orgpolicy.DefaultPath; tests point it elsewhere so
// that they do not depend on the machine's /etc.
var defaultPolicyPath = orgpolicy.DefaultPath

// LoadOptions says where Load looks.
type LoadOptions struct {
	// ProjectRoot: <root>/.moteur/config.yaml is read if present; "" for
	// none.
	ProjectRoot string
	// UserDir is $XDG_CONFIG_HOME/moteur: config.yaml there is read if
	// present; "" for none.
	UserDir string
	// Getenv reads the environment (nil: os.Getenv): api_key_env variables,
	// MOTEUR_BASE_URL, MOTEUR_MODEL, MOTEUR_API_KEY, MOTEUR_CONTEXT_WINDOW,
	// OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY and MOTEUR_POLICY.
	Getenv func(string) string
}

// Load reads the organisation policy, the user's and the project's files
// and the environment, and merges them (see the package doc). A missing
// file is skipped, except an explicit $MOTEUR_POLICY. Any other failure is
// an error that names the file, the line when there is one, and why; the
// caller must not start without a configuration it could read.
func Load(o LoadOptions) (*Config, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}

	// The policy first: when it is broken nothing else matters.
	polPath, explicit := orgpolicy.PathFromEnv(getenv)
	if !explicit {
		polPath = defaultPolicyPath
	}
	pol, err := orgpolicy.Load(polPath, explicit)
	if err != nil {
		return nil, err
	}

	c := &Config{Mode: policy.AutoWrite, Policy: pol}
	var layers []layer
	for i, path := range []string{userPath(o.UserDir), projectPath(o.ProjectRoot)} {
		if path == "" || slices.Contains(c.Sources, path) {
			continue // a project whose root is the user's directory: read once
		}
		// Lstat: a link that leads nowhere is a broken file, not an absent one.
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		f, err := ReadFile(path)
		if err != nil {
			return nil, err
		}
		layers = append(layers, layer{path: path, f: f, project: i == 1})
		c.Sources = append(c.Sources, path)
	}
	if pol != nil {
		c.Sources = append(c.Sources, pol.Path)
	}

	if err := c.merge(layers, getenv); err != nil {
		return nil, err
	}
	if err := c.databaseFromEnv(getenv); err != nil {
		return nil, err
	}
	env, err := providerFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	if env != nil {
		c.Providers = append([]Provider{*env}, c.Providers...)
	}
	c.applyPolicy()
	if err := c.check(); err != nil {
		return nil, err
	}
	// After the environment's provider is in place: a project endpoint
	// without a base_url goes to the first provider, whichever it is.
	if err := c.checkEndpointKeys(); err != nil {
		return nil, err
	}
	c.Embedding = envEndpoint(c.Embedding, getenv, "MOTEUR_EMBED").resolve(c.Providers, getenv)
	c.Rerank = envEndpoint(c.Rerank, getenv, "MOTEUR_RERANK").resolve(c.Providers, getenv)
	return c, nil
}

// envEndpoint applies PREFIX_MODEL, PREFIX_BASE_URL and PREFIX_API_KEY
// (MOTEUR_EMBED_*, MOTEUR_RERANK_*): set in the environment, they replace
// the files' section. Without PREFIX_BASE_URL the model is served by the
// first provider, with its key.
func envEndpoint(e Endpoint, getenv func(string) string, prefix string) Endpoint {
	model := strings.TrimSpace(getenv(prefix + "_MODEL"))
	if model == "" {
		return e
	}
	out := Endpoint{Model: model, BaseURL: strings.TrimSpace(getenv(prefix + "_BASE_URL"))}
	if out.BaseURL != "" && getenv(prefix+"_API_KEY") != "" {
		out.APIKeyEnv = prefix + "_API_KEY"
	}
	return out
}

func userPath(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "config.yaml")
}

func projectPath(root string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(root, ".moteur", "config.yaml")
}

type layer struct {
	path string
	f    *File
	// project: the file came with the code, not from the user; it may
	// only tighten (see the package doc).
	project bool
}

// merge folds the files, in order, into c. The files were checked by
// ReadFile, so parsing here cannot fail but for the combined allowlist and
// what a project file may not do.
func (c *Config) merge(layers []layer, getenv func(string) string) error {
	name := profile.Standard
	var allow []string
	c.keyConsent = map[string]struct{}{}
	for _, l := range layers {
		if !l.project {
			c.userFile = l.path
			c.addKeyConsent(l.f)
		}
	}
	for _, l := range layers {
		f := l.f
		if strings.TrimSpace(f.Profile) != "" {
			n, _ := profile.Parse(f.Profile)
			if l.project && profileStrictness(n) < profileStrictness(name) {
				c.notef("project config %s: profile %s is looser than your %s; keeping %s", l.path, n, name, name)
			} else {
				name = n
			}
		}
		if strings.TrimSpace(f.Mode) != "" {
			m, _ := policy.ParseMode(strings.TrimSpace(f.Mode))
			if l.project && c.Mode.Stricter(m) {
				c.notef("project config %s: mode %s is looser than your %s; keeping %s", l.path, m, c.Mode, c.Mode)
			} else {
				c.Mode = m
			}
		}
		if f.Lang != "" {
			c.Lang, _ = parseLang(f.Lang)
		}
		if len(f.Providers) > 0 {
			c.Providers = c.Providers[:0:0]
			if l.project {
				// A cloned repository chooses where the session's content
				// goes: say so, so the user can pin an allowlist.
				c.noteProjectProviders(l.path, f.Providers)
			}
			for _, fp := range f.Providers {
				if l.project {
					// Before resolveProvider, so that a key that may not
					// go where the project says is never even read.
					if err := c.checkProjectProvider(fp, l.path); err != nil {
						return err
					}
				}
				c.Providers = append(c.Providers, resolveProvider(fp, l.path, getenv))
			}
		}
		if len(f.Allowlist) > 0 {
			list, err := hostmatch.Parse(f.Allowlist)
			if err != nil {
				return fmt.Errorf("config %s: allowlist: %w", l.path, err)
			}
			c.Allowlists = append(c.Allowlists, list)
			c.allowlistFrom = append(c.allowlistFrom, l.path)
			allow = append(allow, f.Allowlist...)
		}
		if l.project {
			c.noteProjectAllow(l.path, f.Permissions.Allow)
		}
		c.Permissions.Allow = append(c.Permissions.Allow, f.Permissions.Allow...)
		c.Permissions.Ask = append(c.Permissions.Ask, f.Permissions.Ask...)
		c.Permissions.Deny = append(c.Permissions.Deny, f.Permissions.Deny...)
		c.ClassifyPaths = append(c.ClassifyPaths, f.Classify.Paths...)
		c.ClassifyMarkings = append(c.ClassifyMarkings, f.Classify.Markings...)
		// Matching in any case finds more: a file may turn it on, never off.
		if ci := f.Classify.CaseInsensitive; ci != nil {
			if *ci {
				c.ClassifyCaseInsensitive = true
			} else if c.ClassifyCaseInsensitive && l.project {
				c.notef("project config %s: classify.case_insensitive false would loosen your classification; keeping true", l.path)
			}
		}
		from := ""
		if l.project {
			from = l.path
		}
		if f.Embedding.isSet() {
			c.Embedding, c.embeddingFrom = f.Embedding.endpoint(), from
		}
		if f.Rerank.isSet() {
			c.Rerank, c.rerankFrom = f.Rerank.endpoint(), from
		}
		c.Retrieval = c.Retrieval.Override(f.Retrieval)
		if f.Agents.MaxDepth > 0 {
			c.AgentsMaxDepth = f.Agents.MaxDepth
		}
		if f.Skills.Selection != "" {
			c.SkillSelection, c.SkillsSelected = f.Skills.Selection, f.Skills.Selected
		}
		if f.MCP.CatalogThreshold > 0 {
			c.MCPCatalogThreshold = f.MCP.CatalogThreshold
		}
		c.addHooks(l)
		c.mergeWeb(l, getenv)
		c.mergeDatabase(l)
	}
	c.Profile = profile.Get(name)
	c.Retrieval = c.Retrieval.WithDefaults()
	var err error
	if c.Allowlist, err = hostmatch.Parse(allow); err != nil {
		return fmt.Errorf("config: allowlist: %w", err)
	}
	return nil
}

// addHooks keeps a file's hooks: section as one hooks.Source. Hooks are
// concatenated, never replaced: a project cannot remove the user's.
func (c *Config) addHooks(l layer) {
	if len(l.f.Hooks) == 0 {
		return
	}
	c.Hooks = append(c.Hooks, hooks.Source{File: l.path, Project: l.project, Events: l.f.Hooks, LineOf: l.f.hookLine})
	if l.project {
		c.notef("project config %s defines hooks (commands run on your machine); they run only once you trust them", l.path)
	}
}

// noteProjectProviders lists the servers a project file sends to.
func (c *Config) noteProjectProviders(path string, ps []FileProvider) {
	var hosts []string
	for _, p := range ps {
		hosts = append(hosts, fmt.Sprintf("%s (%s)", p.Name, hostOf(p.BaseURL)))
	}
	c.notef("project config %s sets the providers your sessions are sent to: %s", path, strings.Join(hosts, ", "))
}

func (c *Config) notef(format string, a ...any) {
	c.Notices = append(c.Notices, fmt.Sprintf(format, a...))
}

// profileStrictness orders profiles, standard < restricted < airgapped.
// A name profile.Parse would not return counts as the strictest, as
// profile.Get treats it.
func profileStrictness(n profile.Name) int {
	switch n {
	case profile.Standard, "":
		return 0
	case profile.Restricted:
		return 1
	case profile.Airgapped:
		return 2
	}
	return 3
}

// noteProjectAllow reports the allow rules a project file adds: rules that
// widen what runs without asking, from a file that came with the code. A
// rule the user's own file already has, or one listed twice, is reported
// once or not at all: it grants nothing new.
func (c *Config) noteProjectAllow(path string, rules []string) {
	var added []string
	for _, r := range rules {
		if slices.Contains(c.Permissions.Allow, r) || slices.Contains(added, r) {
			continue
		}
		added = append(added, r)
	}
	if len(added) == 0 {
		return
	}
	quoted := make([]string, len(added))
	for i, r := range added {
		quoted[i] = strconv.Quote(r)
	}
	c.notef("project config %s adds allow rules: %s (deny rules still win)", path, strings.Join(quoted, ", "))
}

// addKeyConsent records the (server, variable) pairs the user's own file
// declares: a provider, or an embedding or rerank server with its own
// base_url, that names an api_key_env. Only these may a project file reuse.
func (c *Config) addKeyConsent(f *File) {
	for _, p := range f.Providers {
		if p.APIKeyEnv != "" {
			c.keyConsent[consentKey(p.BaseURL, p.APIKeyEnv)] = struct{}{}
		}
	}
	for _, e := range []FileEndpoint{f.Embedding, f.Rerank} {
		if strings.TrimSpace(e.BaseURL) != "" && e.APIKeyEnv != "" {
			c.keyConsent[consentKey(e.BaseURL, e.APIKeyEnv)] = struct{}{}
		}
	}
}

// consentKey identifies a key's destination: the variable and the
// origin (scheme, host, port) of the server. The path does not count, as
// the same key works on every path of a server; the scheme does, as a key
// meant for https must not go in clear.
func consentKey(baseURL, env string) string {
	return origin(baseURL) + " " + env
}

// origin is scheme://host:port of baseURL, lower case, the port made
// explicit; "" when baseURL is no URL (never consented to).
func origin(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	return scheme + "://" + net.JoinHostPort(host, port)
}

// checkProjectKey refuses a project's api_key_env for a server the user has
// not declared with that variable. Without it, a cloned repository could
// name the user's MISTRAL_API_KEY and a host of its own, and receive the
// key with the first request. The error names the variable, never its
// value, which is not read.
func (c *Config) checkProjectKey(path, what, baseURL, env string) error {
	if _, ok := c.keyConsent[consentKey(baseURL, env)]; ok {
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		// An endpoint with neither a base_url nor a provider to inherit one
		// from: there is no server the user could have consented to.
		return fmt.Errorf("config %s: %w", path, fmt.Errorf(
			"%s uses api_key_env %s but names no server: a project file cannot send your credentials "+
				"to a host you have not configured with them", what, env))
	}
	dest := u.Scheme + "://" + u.Host
	yours := "your own config file"
	if c.userFile != "" {
		yours += " " + c.userFile
	}
	return fmt.Errorf("config %s: %w", path, fmt.Errorf(
		"%s (%s) uses api_key_env %s, but %s declares no provider at %s with api_key_env %s: "+
			"a project file cannot send your credentials to a host you have not configured with them; "+
			"if you trust it, add that provider to your own config file",
		what, dest, env, yours, dest, env))
}

// checkProjectProvider applies to a project's provider what a project
// file may not do alone: reuse a key of the user's elsewhere, or call a
// remote host local.
func (c *Config) checkProjectProvider(fp FileProvider, path string) error {
	u, _ := url.Parse(strings.TrimSpace(fp.BaseURL)) // checked by ReadFile
	name := providerName(fp, u)
	if fp.APIKeyEnv != "" {
		if err := c.checkProjectKey(path, "provider "+name, fp.BaseURL, fp.APIKeyEnv); err != nil {
			return err
		}
	}
	if fp.Local && !isPrivateHost(u.Hostname()) {
		// local: true opens the provider to classified content; a project
		// file could otherwise route it to any host by declaring it so.
		return fmt.Errorf("config %s: %w", path, fmt.Errorf(
			"provider %s (%s) is marked local: true, but %s is not a loopback, localhost or private-range address: "+
				"a project file cannot declare a remote host local, since local providers receive classified content; "+
				"if it is local, declare it in your own config file",
			name, u.Host, u.Hostname()))
	}
	return nil
}

// isPrivateHost reports whether host (without port) is localhost, a
// loopback address or a private-range one (10/8, 172.16/12, 192.168/16,
// fc00::/7). Names other than localhost are not resolved: what a name
// points to can change after Load, and is the project's to choose.
func isPrivateHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" {
		return true
	}
	addr, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	addr = addr.Unmap().WithZone("")
	return addr.IsLoopback() || addr.IsPrivate()
}

// checkEndpointKeys applies checkProjectKey to a project's embedding and
// rerank sections, at the server their key would go to: their own
// base_url, else the first provider's.
func (c *Config) checkEndpointKeys() error {
	for _, e := range []struct {
		what, from string
		ep         Endpoint
	}{{"embedding", c.embeddingFrom, c.Embedding}, {"rerank", c.rerankFrom, c.Rerank}} {
		if e.from == "" || e.ep.APIKeyEnv == "" {
			continue
		}
		base := e.ep.BaseURL
		if base == "" && len(c.Providers) > 0 {
			base = c.Providers[0].BaseURL
		}
		if err := c.checkProjectKey(e.from, e.what, base, e.ep.APIKeyEnv); err != nil {
			return err
		}
	}
	return nil
}

func resolveProvider(fp FileProvider, source string, getenv func(string) string) Provider {
	base := strings.TrimSpace(fp.BaseURL)
	u, _ := url.Parse(base) // checked by ReadFile
	p := Provider{
		Name:          providerName(fp, u),
		BaseURL:       base,
		APIKeyEnv:     fp.APIKeyEnv,
		Model:         strings.TrimSpace(fp.Model),
		ContextWindow: fp.ContextWindow,
		Local:         fp.Local,
		Source:        source,
	}
	p.ReasoningEfforts = slices.Clone(fp.ReasoningEfforts)
	if fp.NoThinking != nil {
		p.NoThinking, _ = json.Marshal(fp.NoThinking) // checked by ReadFile
	}
	if fp.APIKeyEnv != "" {
		p.APIKey = strings.TrimSpace(getenv(fp.APIKeyEnv))
	}
	return p
}

// providerFromEnv builds the provider the environment names, or nil.
//
// OPENAI_API_KEY goes only with OPENAI_BASE_URL's server: people keep it in
// their shell for other tools, and sending it to whatever MOTEUR_BASE_URL
// names (another vendor, a colleague's proxy) would leak it. The OPENAI_*
// variables alone, incomplete, are ignored for the same reason: other tools
// set them. A MOTEUR_* variable that cannot make a provider is an error, as
// it can only have been meant for Moteur.
func providerFromEnv(getenv func(string) string) (*Provider, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	base, baseVar := get("MOTEUR_BASE_URL"), "MOTEUR_BASE_URL"
	if base == "" {
		base, baseVar = get("OPENAI_BASE_URL"), "OPENAI_BASE_URL"
	}
	model := get("MOTEUR_MODEL")
	if model == "" {
		model = get("OPENAI_MODEL")
	}
	switch {
	case base == "" && get("MOTEUR_MODEL") != "":
		return nil, errors.New("MOTEUR_MODEL is set but MOTEUR_BASE_URL is not: set both, or neither to use the config file's providers")
	case base == "":
		return nil, nil
	case model == "" && baseVar == "OPENAI_BASE_URL":
		return nil, nil
	case model == "":
		return nil, errors.New("MOTEUR_BASE_URL is set but MOTEUR_MODEL is not: set the model name too")
	}
	u, err := checkURL(base)
	if err != nil {
		return nil, fmt.Errorf("invalid %s: %w", baseVar, err)
	}
	p := &Provider{Name: u.Host, BaseURL: base, Model: model, Source: "$" + baseVar}
	switch {
	case baseVar == "MOTEUR_BASE_URL" && get("MOTEUR_API_KEY") != "":
		p.APIKey, p.APIKeyEnv = get("MOTEUR_API_KEY"), "MOTEUR_API_KEY"
	case baseVar == "OPENAI_BASE_URL" && get("MOTEUR_API_KEY") != "":
		// MOTEUR_API_KEY is Moteur's own: it goes to whichever server
		// Moteur was pointed at.
		p.APIKey, p.APIKeyEnv = get("MOTEUR_API_KEY"), "MOTEUR_API_KEY"
	case baseVar == "OPENAI_BASE_URL":
		p.APIKey, p.APIKeyEnv = get("OPENAI_API_KEY"), "OPENAI_API_KEY"
	}
	if s := get("MOTEUR_CONTEXT_WINDOW"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("invalid MOTEUR_CONTEXT_WINDOW %q: want a positive number of tokens", s)
		}
		p.ContextWindow = n
	}
	return p, nil
}

// applyPolicy puts the organisation policy on top. It only ever tightens:
// the profile is replaced (the policy's choice, stricter or not, is the
// organisation's), the mode only goes up, rules are only added.
func (c *Config) applyPolicy() {
	pol := c.Policy
	if pol == nil {
		return
	}
	if pol.Profile != "" {
		c.Profile = profile.Get(pol.Profile)
	}
	if pol.MinMode != "" && pol.MinMode.Stricter(c.Mode) {
		c.Mode = pol.MinMode
	}
	// A bare tool name (or glob) is a policy rule that covers every call of
	// the tool, so the names go in as they are.
	c.Permissions.Deny = append(c.Permissions.Deny, pol.DeniedTools...)
}

// check refuses a configuration with a provider, or an embedding or rerank
// server, that a rule would refuse at every send.
func (c *Config) check() error {
	// Each file's settings were valid alone; together they must be too
	// (one file's rerank_fallback above another's rerank_threshold).
	if err := c.Retrieval.Validate(); err != nil {
		return fmt.Errorf("config %s: %w", strings.Join(c.Sources, ", "), err)
	}
	seen := map[string]string{}
	for _, p := range c.Providers {
		if prev, dup := seen[p.Name]; dup {
			return fmt.Errorf("provider %s is defined twice (%s and %s): give each a distinct name", p.Name, prev, p.Source)
		}
		seen[p.Name] = p.Source
		if err := c.checkDest("provider "+p.Name, p.BaseURL, p.Source, p.Local); err != nil {
			return err
		}
	}
	for _, e := range []struct {
		what string
		ep   Endpoint
	}{{"embedding", c.Embedding}, {"rerank", c.Rerank}} {
		if e.ep.BaseURL == "" {
			continue // uses the first provider's server, checked above
		}
		if err := c.checkDest(e.what+" server", e.ep.BaseURL, "", c.isLocalHost(e.ep.BaseURL)); err != nil {
			return err
		}
	}
	return nil
}

// checkDest applies to one destination the host rules of policy.Outbound.
func (c *Config) checkDest(what, baseURL, source string, local bool) error {
	host := hostOf(baseURL)
	from := ""
	if source != "" {
		from = ", from " + source
	}
	if c.Policy != nil && !c.Policy.AllowedHosts.Empty() && !c.Policy.AllowedHosts.Allows(baseURL) {
		return fmt.Errorf("%s (%s%s) is not allowed by the organisation policy %s", what, host, from, c.Policy.Path)
	}
	if c.Profile.LocalOnly && !local {
		return fmt.Errorf("%s (%s%s) is not local, and profile %s%s uses only providers marked local: true",
			what, host, from, c.Profile.Name, c.forcedBy())
	}
	listed := false
	for i, l := range c.Allowlists {
		if !l.Allows(baseURL) {
			return fmt.Errorf("%s (%s%s) is not in the allowlist of %s", what, host, from, c.allowlistFrom[i])
		}
		listed = true
	}
	if c.Profile.RequireAllowlist && !listed && !local {
		return fmt.Errorf("%s (%s%s) is remote, and profile %s%s sends only to hosts an allowlist names; no allowlist is configured",
			what, host, from, c.Profile.Name, c.forcedBy())
	}
	return nil
}

func (c *Config) forcedBy() string {
	if c.Policy != nil && c.Policy.Profile != "" {
		return " (forced by the organisation policy " + c.Policy.Path + ")"
	}
	return ""
}

// isLocalHost reports whether baseURL's host is that of a provider marked
// local: an embedding or rerank server there may see what the provider may.
func (c *Config) isLocalHost(baseURL string) bool {
	h := strings.ToLower(hostOf(baseURL))
	for _, p := range c.Providers {
		if p.Local && strings.ToLower(p.Host()) == h {
			return true
		}
	}
	return false
}

// resolve fills an endpoint's server from the first provider when it names
// none, and its key from its own variable.
func (e Endpoint) resolve(providers []Provider, getenv func(string) string) Endpoint {
	if e.Model == "" {
		return Endpoint{}
	}
	if e.BaseURL == "" && len(providers) > 0 {
		first := providers[0]
		e.BaseURL = first.BaseURL
		if e.APIKeyEnv == "" {
			e.APIKeyEnv, e.APIKey = first.APIKeyEnv, first.APIKey
			return e
		}
	}
	if e.APIKeyEnv != "" {
		e.APIKey = strings.TrimSpace(getenv(e.APIKeyEnv))
	}
	return e
}

func hostOf(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return baseURL
}
