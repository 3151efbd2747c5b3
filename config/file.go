package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/kb/retrieval"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/strictyaml"
)

// File is one configuration file as written. Every key is optional; values
// are checked by ReadFile but not yet merged or resolved.
type File struct {
	Profile   string         `yaml:"profile"` // standard | restricted | airgapped
	Mode      string         `yaml:"mode"`    // read_only | confirm | auto_write
	Lang      string         `yaml:"lang"`    // fr | en
	Providers []FileProvider `yaml:"providers"`
	Allowlist []string       `yaml:"allowlist"`

	Permissions struct {
		Allow []string `yaml:"allow"`
		Ask   []string `yaml:"ask"`
		Deny  []string `yaml:"deny"`
	} `yaml:"permissions"`

	Classify struct {
		Paths    []string `yaml:"paths"`
		Markings []string `yaml:"markings"`
		// CaseInsensitive: markings, built-in and listed, match in any
		// case. nil when the file does not say.
		CaseInsensitive *bool `yaml:"case_insensitive"`
	} `yaml:"classify"`

	Embedding FileEndpoint `yaml:"embedding"`
	Rerank    FileEndpoint `yaml:"rerank"`
	// Retrieval tunes knowledge-base search; a field left out (or 0) keeps
	// the value below it (another file's, else the default).
	Retrieval retrieval.Settings `yaml:"retrieval"`

	// Skills chooses the skills the model is offered: all (the default),
	// the selected ones, or none. A later file's choice replaces an
	// earlier one's.
	Skills struct {
		Selection string   `yaml:"selection"`
		Selected  []string `yaml:"selected"`
	} `yaml:"skills"`

	// Agents: MaxDepth is how many levels of sub-agents may run below the
	// main agent (0: 1, children start no children).
	Agents struct {
		MaxDepth int `yaml:"max_depth"`
	} `yaml:"agents"`

	MCP struct {
		// CatalogThreshold: above this many tools offered by the MCP
		// servers, the model gets discover_mcp_tools and call_mcp_tool
		// instead of every definition (0: the default, 40).
		CatalogThreshold int `yaml:"catalog_threshold"`
	} `yaml:"mcp"`

	// Web is the search provider of web_search and the private hosts
	// web_fetch may reach (see FileWeb).
	Web FileWeb `yaml:"web"`

	// Database is where the data is kept (see FileDatabase); honoured only
	// in the user's own file.
	Database FileDatabase `yaml:"database"`

	// Hooks is Claude Code's hooks setting, in its shape: EVENT: [{matcher:
	// REGEX, hooks: [{type: command, command: …, timeout: SECONDS}]}].
	// Event names, types and matchers are checked by hooks.New, which
	// reports a bad hook and skips it rather than stopping the session.
	Hooks map[string][]hooks.Group `yaml:"hooks"`

	// hookLine gives the line of a key path in the file, for hooks.New's
	// reports; nil when the file was not read by ReadFile.
	hookLine func(path string) int
}

// FileProvider is one entry of providers: as written. There is no api_key
// key: a key in a file ends up in backups, repositories and screenshots, so
// the file names the environment variable that holds it (api_key_env), and
// a literal api_key is an error that says so.
type FileProvider struct {
	// Name identifies the provider in messages and routing; default: the
	// host of BaseURL.
	Name      string `yaml:"name"`
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
	Model     string `yaml:"model"`
	// ContextWindow in tokens; 0: the engine's default.
	ContextWindow int `yaml:"context_window"`
	// Local: the provider runs on this machine or the organisation's network
	// and may receive classified content. Nothing is inferred from the host
	// (a loopback port may be a proxy to a remote API): only this says so.
	Local bool `yaml:"local"`
	// NoThinking is the JSON object merged into a request's body to switch
	// the model's reasoning off, for servers that take it as an extra
	// parameter, e.g. {chat_template_kwargs: {enable_thinking: false}}
	// (vLLM, SGLang with Qwen3). Must be a mapping.
	NoThinking map[string]any `yaml:"no_thinking"`
	// ReasoningEfforts are the reasoning efforts the model accepts, among
	// minimal, low, medium, high, xhigh and max, e.g. [low, medium, high];
	// a level asked of it that it lacks is adjusted to one of these. None:
	// minimal, low, medium and high, what OpenAI-compatible servers
	// accept.
	ReasoningEfforts []string `yaml:"reasoning_efforts"`
}

// FileEndpoint is the embedding: or rerank: section. BaseURL and APIKeyEnv
// default to the first provider's (see Load).
type FileEndpoint struct {
	Model     string `yaml:"model"`
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
}

func (e FileEndpoint) isSet() bool { return e != FileEndpoint{} }

func (e FileEndpoint) endpoint() Endpoint {
	return Endpoint{Model: strings.TrimSpace(e.Model), BaseURL: strings.TrimSpace(e.BaseURL), APIKeyEnv: e.APIKeyEnv}
}

// ReadFile reads and checks one configuration file: strict YAML (an unknown
// key is an error, so that a typo like "premissions:" cannot silently drop
// rules), then every value that can be checked alone — names of profiles,
// modes and languages, provider URLs, hosts, variable names. Errors name the
// file, the line and why.
func ReadFile(path string) (*File, error) {
	fail := func(err error) (*File, error) { return nil, fmt.Errorf("config %s: %w", path, err) }
	data, err := strictyaml.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	var f File
	tree, err := strictyaml.Decode(data, &f)
	if err != nil {
		var ye *strictyaml.Error
		if errors.As(err, &ye) && ye.Key == "api_key" {
			ye.Msg = "api_key is not accepted: an API key never goes in a config file; " +
				"put it in an environment variable and name that variable with api_key_env"
		}
		return fail(err)
	}
	if err := f.check(tree); err != nil {
		return fail(err)
	}
	f.hookLine = func(path string) int { return strictyaml.LineOf(tree, path) }
	return &f, nil
}

// check validates the values of f; tree gives their lines.
func (f *File) check(tree *ast.File) error {
	at := func(path string, err error) error {
		return &strictyaml.Error{Line: strictyaml.LineOf(tree, path), Msg: err.Error(), Err: err}
	}
	if strings.TrimSpace(f.Profile) != "" {
		if _, err := profile.Parse(f.Profile); err != nil {
			return at("$.profile", fmt.Errorf("profile: %w", err))
		}
	}
	if strings.TrimSpace(f.Mode) != "" {
		if _, err := policy.ParseMode(strings.TrimSpace(f.Mode)); err != nil {
			return at("$.mode", fmt.Errorf("mode: %w", err))
		}
	}
	if f.Lang != "" {
		if _, err := parseLang(f.Lang); err != nil {
			return at("$.lang", err)
		}
	}
	switch f.Skills.Selection {
	case "", "all", "selected", "none":
	default:
		return at("$.skills.selection", fmt.Errorf("skills.selection %q: want all, selected or none", f.Skills.Selection))
	}
	if f.Agents.MaxDepth < 0 || f.Agents.MaxDepth > 5 {
		return at("$.agents.max_depth", fmt.Errorf("agents.max_depth %d: want 1 to 5 levels of sub-agents (0: the default, 1)", f.Agents.MaxDepth))
	}
	if f.MCP.CatalogThreshold < 0 {
		return at("$.mcp.catalog_threshold", fmt.Errorf("mcp.catalog_threshold %d: want a number of tools, 0 or more (0: the default, 40)", f.MCP.CatalogThreshold))
	}
	if err := f.Retrieval.Validate(); err != nil {
		return at("$.retrieval", err)
	}
	if key, err := f.Web.check(); err != nil {
		return at(key, err)
	}
	if key, err := f.Database.check(); err != nil {
		return at(key, err)
	}
	names := map[string]int{}
	for i := range f.Providers {
		p := &f.Providers[i]
		key := fmt.Sprintf("$.providers[%d]", i)
		u, err := checkURL(p.BaseURL)
		if err != nil {
			return at(key+".base_url", fmt.Errorf("providers[%d].base_url: %w", i, err))
		}
		if strings.TrimSpace(p.Model) == "" {
			return at(key, fmt.Errorf("providers[%d] (%s): model is required", i, u.Host))
		}
		if p.APIKeyEnv != "" {
			if err := checkEnvName(p.APIKeyEnv); err != nil {
				return at(key+".api_key_env", fmt.Errorf("providers[%d].api_key_env: %w", i, err))
			}
		}
		if p.ContextWindow < 0 {
			return at(key+".context_window", fmt.Errorf("providers[%d].context_window: must not be negative", i))
		}
		if _, err := json.Marshal(p.NoThinking); err != nil {
			return at(key+".no_thinking", fmt.Errorf("providers[%d].no_thinking: not a JSON object: %w", i, err))
		}
		for j, e := range p.ReasoningEfforts {
			if !slices.Contains(llm.EffortLevels(), e) {
				return at(fmt.Sprintf("%s.reasoning_efforts[%d]", key, j), fmt.Errorf("providers[%d].reasoning_efforts[%d]: unknown reasoning effort %q: want %s",
					i, j, e, strings.Join(llm.EffortLevels(), ", ")))
			}
		}
		name := providerName(*p, u)
		if j, dup := names[name]; dup {
			return at(key, fmt.Errorf("providers[%d] and providers[%d] are both named %q: give each a distinct name", j, i, name))
		}
		names[name] = i
	}
	for i, h := range f.Allowlist {
		if _, err := hostmatch.Parse([]string{h}); err != nil {
			return at(fmt.Sprintf("$.allowlist[%d]", i), fmt.Errorf("allowlist: %w", err))
		}
	}
	// Rules, globs and markings are compiled here, one by one, by the
	// packages that will use them, so that a malformed one is reported with
	// its file and line at startup: a deny rule that silently never
	// matched would be a hole.
	for _, l := range []struct {
		key   string
		items []string
		check func(string) error
	}{
		{"permissions.allow", f.Permissions.Allow, func(r string) error { return checkRule(policy.Rules{Allow: []string{r}}) }},
		{"permissions.ask", f.Permissions.Ask, func(r string) error { return checkRule(policy.Rules{Ask: []string{r}}) }},
		{"permissions.deny", f.Permissions.Deny, func(r string) error { return checkRule(policy.Rules{Deny: []string{r}}) }},
		{"classify.paths", f.Classify.Paths, func(g string) error { _, err := classify.New(classify.Rules{Paths: []string{g}}); return err }},
		{"classify.markings", f.Classify.Markings, func(m string) error { _, err := classify.New(classify.Rules{Markings: []string{m}}); return err }},
	} {
		for i, s := range l.items {
			if err := l.check(s); err != nil {
				return at(fmt.Sprintf("$.%s[%d]", l.key, i), fmt.Errorf("%s[%d]: %w", l.key, i, err))
			}
		}
	}
	for _, e := range []struct {
		key string
		ep  FileEndpoint
	}{{"embedding", f.Embedding}, {"rerank", f.Rerank}} {
		if !e.ep.isSet() {
			continue
		}
		if strings.TrimSpace(e.ep.Model) == "" {
			return at("$."+e.key, fmt.Errorf("%s: model is required", e.key))
		}
		if e.ep.BaseURL != "" {
			if _, err := checkURL(e.ep.BaseURL); err != nil {
				return at("$."+e.key+".base_url", fmt.Errorf("%s.base_url: %w", e.key, err))
			}
		}
		if e.ep.APIKeyEnv != "" {
			if err := checkEnvName(e.ep.APIKeyEnv); err != nil {
				return at("$."+e.key+".api_key_env", fmt.Errorf("%s.api_key_env: %w", e.key, err))
			}
		}
	}
	return nil
}

// checkRule compiles a permission rule the way policy.NewPermissions will,
// and returns why it is malformed, without the package prefixes.
func checkRule(r policy.Rules) error {
	_, err := policy.NewPermissions(policy.PermissionsConfig{Rules: r})
	var re *policy.RuleError
	if errors.As(err, &re) {
		return re.Err
	}
	return err
}

// checkURL accepts an absolute http or https URL with a host and without
// credentials: a user:password@ in a URL is a secret in a file, the very
// thing api_key_env exists to avoid. The value is never quoted in errors.
func checkURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("is required (an http or https URL such as https://api.mistral.ai/v1)")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, errors.New("want an http or https URL such as https://api.mistral.ai/v1")
	}
	if u.User != nil {
		return nil, errors.New("credentials in the URL are not accepted: name an environment variable with api_key_env")
	}
	if _, err := hostmatch.Parse([]string{u.Host}); err != nil {
		return nil, fmt.Errorf("host %q is not usable: %w", u.Host, err)
	}
	return u, nil
}

// checkEnvName accepts a POSIX environment variable name. A value that is
// not one is most often the key itself pasted in the wrong place, so the
// error never quotes it.
func checkEnvName(s string) error {
	ok := s != ""
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			ok = false
			break
		}
	}
	if !ok {
		return errors.New("must name an environment variable (letters, digits and _), not hold the key itself")
	}
	return nil
}

func parseLang(s string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(s)); l {
	case "fr", "en":
		return l, nil
	}
	return "", fmt.Errorf("lang: unknown language %q: want fr or en", s)
}

// providerName is the configured name, else the host of the base URL (with
// its port), as the CLI names its provider.
func providerName(p FileProvider, u *url.URL) string {
	if n := strings.TrimSpace(p.Name); n != "" {
		return n
	}
	return u.Host
}
