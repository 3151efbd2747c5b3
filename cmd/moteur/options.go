package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
)

// The command line opens its sessions through package app: the flags
// become app.Options, app's errors become exit statuses, and what app says
// the user should know is printed here.

// options are the app.Options every command starts from: the environment,
// the project (the working directory), the clock, the naming of new
// sessions, the extra tools and --lang.
func (c *cli) options(g *globalFlags) (app.Options, error) {
	root, err := c.projectRoot()
	if err != nil {
		return app.Options{}, err
	}
	lang, err := c.langFlag(g.lang)
	if err != nil {
		return app.Options{}, err
	}
	return app.Options{ProjectRoot: root, Env: c.env, Now: c.now, NewSessionID: c.newSessionID, Lang: lang, Tools: c.tools}, nil
}

// apply sets the options the agent flags carry (checked by checkAgentFlags).
func (f *agentFlags) apply(o *app.Options) {
	o.SessionID = f.session
	o.Mode, _ = modeFlagIn(i18n.EN, f.mode) // checked by checkAgentFlags: the error is not shown
	o.Allow = f.allow
	o.Sandbox = f.sandbox
	o.ReasoningEffort = f.effort
	o.MaxIterations = f.maxIterations
	if f.agent != "" && f.changed != nil && !f.changed("max-iterations") {
		o.MaxIterations = 0 // the agent's max_iterations
	}
	o.ApprovalTimeout = f.approvalTimeout
	o.KnowledgeBases = f.kb
	o.TrustProject = f.trustProject
	f.web.apply(o)
}

// projectRoot is the project of a command: the working directory, absolute.
func (c *cli) projectRoot() (string, error) {
	root, err := c.workDir()
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return "", fmt.Errorf(c.tr("project root: %w"), err)
	}
	return root, nil
}

// settings reads the configuration with the options and prints its notes:
// the user should know what the project's file asked for before anything
// runs.
func (c *cli) settings(o app.Options) (*app.Settings, error) {
	st, err := app.LoadSettings(o)
	if err != nil {
		return nil, appError(err)
	}
	c.note(st.Notes)
	return st, nil
}

// note prints the notes of the settings.
func (c *cli) note(notes []string) {
	for _, n := range notes {
		fmt.Fprintln(c.stderr, c.trf("moteur: note: %s", oneLine(n, 500)))
	}
}

// warn prints the warnings of an opened session.
func (c *cli) warn(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(c.stderr, c.trf("moteur: warning: %s", w))
	}
}

// appError maps app's errors to exit statuses: an option the configuration
// refuses is bad usage, named as the flag that set it; a configuration
// missing what the command needs is bad usage without the hint (the
// message says what to set); a knowledge base that does not exist, the
// user's mistake; anything else a failure.
func appError(err error) error {
	var oe *app.OptionError
	var ce *app.ConfigError
	switch {
	case errors.As(err, &oe):
		return usageErrorf("--%s %v", oe.Option, oe.Err)
	case errors.As(err, &ce):
		return configError(err)
	}
	return kbError(err)
}

// kbError maps the knowledge bases' errors to exit statuses: a base that
// does not exist or exists already is the user's mistake (2), the rest a
// failure.
func kbError(err error) error {
	if errors.Is(err, kb.ErrNotFound) || errors.Is(err, kb.ErrExists) {
		return &statusError{code: exitUsage, err: err}
	}
	return failure(err)
}

// listSettings are the settings of a command that runs no turn (a listing,
// a login): no model is required.
func (c *cli) listSettings(g *globalFlags, tweak func(*app.Options)) (*app.Settings, error) {
	o, err := c.options(g)
	if err != nil {
		return nil, err
	}
	o.NoModel = true
	if tweak != nil {
		tweak(&o)
	}
	return c.settings(o)
}
