package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FileWeb is the web: section of a file: the search provider of
// web_search, and the private or loopback hosts web_fetch may reach.
//
//	web:
//	  search: {provider: searxng, base_url: http://127.0.0.1:8888, local: true}
//	  allow_private_hosts: ["127.0.0.1:8888", intranet.corp.example]
type FileWeb struct {
	Search            *FileWebSearch `yaml:"search"`
	AllowPrivateHosts []string       `yaml:"allow_private_hosts"`
}

// FileWebSearch is web.search: as written.
type FileWebSearch struct {
	// Provider is searxng (self-hosted), brave or tavily.
	Provider string `yaml:"provider"`
	// BaseURL is required for searxng; brave and tavily default to their
	// public APIs.
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
	// Local: the provider runs on this machine or network and may receive
	// a sensitive session's queries.
	Local bool `yaml:"local"`
	// MaxResults is the default count of results (0: 5; at most 20).
	MaxResults int `yaml:"max_results"`
}

// Web is the merged web: section. Only the user's own file sets it: a
// project's would choose where queries go and which private hosts may be
// fetched, so it is reported in Notices and ignored.
type Web struct {
	// Search is nil without a search provider: web_fetch alone.
	Search            *WebSearch
	AllowPrivateHosts []string
	// Source is the file it came from.
	Source string
}

// WebSearch is the search provider, its key read from APIKeyEnv.
type WebSearch struct {
	Provider, BaseURL, APIKeyEnv, APIKey string
	Local                                bool
	MaxResults                           int
}

// webProviders are the search providers web_search speaks.
var webProviders = []string{"searxng", "brave", "tavily"}

// check validates the section, returning the key path of a fault.
func (w FileWeb) check() (string, error) {
	for i, h := range w.AllowPrivateHosts {
		if h = strings.TrimSpace(h); h == "" || strings.Contains(h, "/") {
			return fmt.Sprintf("$.web.allow_private_hosts[%d]", i),
				fmt.Errorf("web.allow_private_hosts[%d] %q: want a host or host:port, such as 127.0.0.1:8888", i, h)
		}
	}
	s := w.Search
	if s == nil {
		return "", nil
	}
	if !slices.Contains(webProviders, s.Provider) {
		return "$.web.search.provider", fmt.Errorf("web.search.provider %q: want %s", s.Provider, strings.Join(webProviders, ", "))
	}
	if s.BaseURL != "" || s.Provider == "searxng" {
		if _, err := checkURL(s.BaseURL); err != nil {
			return "$.web.search.base_url", fmt.Errorf("web.search.base_url: %w", err)
		}
	}
	if s.APIKeyEnv != "" {
		if err := checkEnvName(s.APIKeyEnv); err != nil {
			return "$.web.search.api_key_env", fmt.Errorf("web.search.api_key_env: %w", err)
		}
	} else if s.Provider != "searxng" {
		return "$.web.search", errors.New("web.search: " + s.Provider + " needs api_key_env, the variable that holds its key")
	}
	if s.MaxResults < 0 || s.MaxResults > 20 {
		return "$.web.search.max_results", fmt.Errorf("web.search.max_results %d: want 1 to 20 (0: 5)", s.MaxResults)
	}
	return "", nil
}

// set reports whether the file has a web: section.
func (w FileWeb) set() bool { return w.Search != nil || len(w.AllowPrivateHosts) > 0 }

// mergeWeb takes the web: section of the file of layer l.
func (c *Config) mergeWeb(l layer, getenv func(string) string) {
	w := l.f.Web
	if !w.set() {
		return
	}
	if l.project {
		c.notef("project config %s: web: is honoured only in your own configuration (it would choose where queries go and which private hosts may be fetched); ignored", l.path)
		return
	}
	out := &Web{AllowPrivateHosts: slices.Clone(w.AllowPrivateHosts), Source: l.path}
	if s := w.Search; s != nil {
		out.Search = &WebSearch{Provider: s.Provider, BaseURL: strings.TrimSpace(s.BaseURL), APIKeyEnv: s.APIKeyEnv,
			Local: s.Local, MaxResults: s.MaxResults}
		if s.APIKeyEnv != "" {
			out.Search.APIKey = getenv(s.APIKeyEnv)
		}
	}
	c.Web = out
}
