package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/hooks"
)

const userHooks = `hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: /usr/bin/true
          timeout: 30
`

const projectHooks = `hooks:
  UserPromptSubmit:
    - hooks:
        - {type: command, command: echo project}
`

func TestHooksMergedUserThenProject(t *testing.T) {
	e := newEnv(t).writeUser(userHooks).writeProject(projectHooks)
	c := e.mustLoad()
	if len(c.Hooks) != 2 {
		t.Fatalf("Hooks = %+v, want the user's and the project's", c.Hooks)
	}
	u, p := c.Hooks[0], c.Hooks[1]
	if u.File != e.userFile() || u.Project || p.File != e.projectFile() || !p.Project {
		t.Fatalf("sources = %s (project %v), %s (project %v)", u.File, u.Project, p.File, p.Project)
	}
	g := u.Events["PreToolUse"]
	if len(g) != 1 || g[0].Matcher != "Bash" || g[0].Hooks[0] != (hooks.Command{Type: "command", Command: "/usr/bin/true", Timeout: 30}) {
		t.Fatalf("user PreToolUse = %+v", g)
	}
	if p.Events["UserPromptSubmit"][0].Hooks[0].Command != "echo project" {
		t.Fatalf("project hooks = %+v", p.Events)
	}
	if !slices.ContainsFunc(c.Notices, func(n string) bool {
		return strings.Contains(n, e.projectFile()) && strings.Contains(n, "hooks") && strings.Contains(n, "trust")
	}) {
		t.Fatalf("no notice of the project's hooks in %q", c.Notices)
	}
	// The sources build a Set in which the project's hooks wait for trust.
	set, errs := hooks.New(hooks.Config{Sources: c.Hooks, ProjectDir: e.project})
	if len(errs) != 0 {
		t.Fatalf("New: %v", errs)
	}
	if set.ProjectSHA256() == "" || !set.Has(hooks.UserPromptSubmit) || set.WithoutProject().Has(hooks.UserPromptSubmit) {
		t.Fatalf("project hooks not told apart: sum %q", set.ProjectSHA256())
	}
}

func TestHooksLinesInReports(t *testing.T) {
	e := newEnv(t).writeUser("lang: en\nhooks:\n  PreToolUse:\n    - matcher: \"(\"\n      hooks: [{type: command, command: \"true\"}]\n")
	c := e.mustLoad()
	_, errs := hooks.New(hooks.Config{Sources: c.Hooks})
	var ce *hooks.ConfigError
	if len(errs) != 1 || !errors.As(errs[0], &ce) {
		t.Fatalf("errs = %v, want one ConfigError", errs)
	}
	if ce.File != e.userFile() || ce.Key != "hooks.PreToolUse[0].matcher" || ce.Line != 4 {
		t.Fatalf("ConfigError = %+v, want the file, key and line 4", ce)
	}
}

func TestHooksUnknownKeyIsAnError(t *testing.T) {
	newEnv(t).writeUser("hooks:\n  Stop:\n    - hooks: [{type: command, comand: \"true\"}]\n").loadErr("comand")
}
