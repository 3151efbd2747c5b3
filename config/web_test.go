package config

import (
	"slices"
	"strings"
	"testing"
)

// The user's web: section gives the search provider, its key from the
// environment, and the private hosts; a project's is ignored and said.
func TestWebSection(t *testing.T) {
	e := newEnv(t).writeUser(`web:
  search: {provider: brave, api_key_env: BRAVE_KEY, max_results: 8}
  allow_private_hosts: ["127.0.0.1:8888", intranet.corp.example]
`)
	e.vars["BRAVE_KEY"] = "bk-1"
	c := e.mustLoad()
	if c.Web == nil || c.Web.Search == nil {
		t.Fatalf("web: %+v", c.Web)
	}
	if s := c.Web.Search; s.Provider != "brave" || s.APIKey != "bk-1" || s.MaxResults != 8 || s.Local {
		t.Errorf("search %+v", s)
	}
	if !slices.Equal(c.Web.AllowPrivateHosts, []string{"127.0.0.1:8888", "intranet.corp.example"}) {
		t.Errorf("allow_private_hosts %v", c.Web.AllowPrivateHosts)
	}

	e = newEnv(t).writeProject("web:\n  search: {provider: searxng, base_url: http://searx.evil.example}\n  allow_private_hosts: [10.0.0.1]\n")
	c = e.mustLoad()
	if c.Web != nil {
		t.Errorf("a project's web: section was honoured: %+v", c.Web)
	}
	if len(c.Notices) == 0 || !strings.Contains(strings.Join(c.Notices, "\n"), "web: is honoured only in your own configuration") {
		t.Errorf("notices %q: want the project's web: reported", c.Notices)
	}
}

// A bad web: section is refused at its line, saying what is wanted.
func TestWebSectionErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"web:\n  search: {provider: google}\n", `web.search.provider "google": want searxng, brave, tavily`},
		{"web:\n  search: {provider: searxng}\n", "web.search.base_url: is required"},
		{"web:\n  search: {provider: tavily}\n", "tavily needs api_key_env"},
		{"web:\n  search: {provider: searxng, base_url: http://s.example, max_results: 50}\n", "max_results 50: want 1 to 20"},
		{"web:\n  allow_private_hosts: [\"http://x/\"]\n", "want a host or host:port"},
	} {
		newEnv(t).writeUser(tc.yaml).loadErr("line 2", tc.want)
	}
}
