package app

import (
	"errors"
	"fmt"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
)

// Settings are what a session starts from: the merged configuration of a
// project — the user's file, the project's, the environment, the
// organisation policy on top, which nothing loosens — with the Options
// applied.
type Settings struct {
	// Config is the merged configuration.
	Config *config.Config
	// Lang is the language of the session: Options.Lang, else the
	// configuration's, else $MOTEUR_LANG, else French.
	Lang i18n.Lang
	// Floor is the organisation policy's min_mode ("": none).
	Floor policy.Mode
	// Permissions decide each call: the configuration's rules with
	// Options.Allow, in the mode in force (Permissions.Mode).
	Permissions *policy.Permissions
	// Notes are what the project's file asked for and did not get, or
	// grants: the user should know before anything runs. One line each.
	Notes []string

	opts Options
	// agent is Options.Agent with its defaults (nil: none).
	agent *agentconfig.Agent
	// classifier holds the configuration's classification rules,
	// compiled once for the tools, the outbound check and the knowledge
	// bases.
	classifier *classify.Classifier
}

// LoadSettings reads the configuration of the project o names and applies
// o. A configuration, a policy or classification rules that cannot be read
// are an error: nothing may run without the rules they hold. No provider at
// all while o needs a model is a *ConfigError; o.Mode looser than the
// organisation allows, an *OptionError.
func LoadSettings(o Options) (*Settings, error) {
	o, err := o.resolved()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(config.LoadOptions{ProjectRoot: o.ProjectRoot, UserDir: userConfigDir(o.Env), Getenv: o.Env})
	if err != nil {
		return nil, err
	}
	s := &Settings{Config: cfg, Lang: resolveLang(o.Lang, cfg.Lang, o.Env), Notes: cfg.Notices, opts: o}
	if n := s.Database().KBNotice(s.Lang); n != "" {
		s.Notes = append(s.Notes, n)
	}
	if len(cfg.Providers) == 0 && !o.NoModel {
		return nil, &ConfigError{Err: errors.New(noModelMessage(s.Lang))}
	}
	if s.agent, err = prepareAgent(o.Agent, s.Lang); err != nil {
		return nil, err
	}
	if s.agent != nil {
		cfg.Providers = agentProviders(cfg.Providers, s.agent.Config.ModelID)
	}
	mode := cfg.Mode
	if cfg.Policy != nil {
		s.Floor = cfg.Policy.MinMode
	}
	asked, option, err := askedMode(o.Mode, s.agent, s.Lang)
	if err != nil {
		return nil, err
	}
	if asked != "" {
		if s.Floor != "" && s.Floor.Stricter(asked) {
			if option != "agent" {
				return nil, modeRefusal(asked, s.Floor, cfg.Policy.Path, s.Lang)
			}
			// An agent's access level is what it may do at most: the
			// organisation narrowing it is the rule, not a mistake.
			s.Notes = append(s.Notes, i18n.Trf(s.Lang, "agent %s: access_level %s runs as %s, the min_mode of the organisation policy %s",
				agentName(s.agent), asked, s.Floor, cfg.Policy.Path))
			asked = s.Floor
		}
		mode = asked
	}
	rules := cfg.Permissions
	rules.Allow = append(append([]string(nil), rules.Allow...), o.Allow...)
	pc := policy.PermissionsConfig{Rules: rules, Mode: mode, Root: o.ProjectRoot, Floor: s.Floor}
	if cfg.Policy != nil {
		pc.DeniedTools = cfg.Policy.DeniedTools
	}
	if s.Permissions, err = policy.NewPermissions(pc); err != nil {
		return nil, err
	}
	if s.classifier, err = classify.New(cfg.ClassifyRules()); err != nil {
		return nil, fmt.Errorf("classification rules: %w", err)
	}
	return s, nil
}

// ProjectRoot is the project the settings are of, absolute.
func (s *Settings) ProjectRoot() string { return s.opts.ProjectRoot }

// DataDir is the data directory, absolute.
func (s *Settings) DataDir() string { return s.opts.DataDir }

// Database is where the data directory's data is kept, as the
// configuration chose it.
func (s *Settings) Database() Database {
	return Database{Home: s.DataDir(), Database: s.Config.Database}
}

// resolveLang picks the language: the option, else the configuration's
// lang, else MOTEUR_LANG (read leniently), else French.
func resolveLang(l i18n.Lang, configured string, env func(string) string) i18n.Lang {
	switch {
	case l != "":
		return l.Normalize()
	case configured != "":
		return i18n.Parse(configured)
	}
	return i18n.Parse(env("MOTEUR_LANG"))
}

// noModelMessage says, in one line, how to configure a model.
func noModelMessage(lang i18n.Lang) string {
	if lang.Normalize() == i18n.EN {
		return i18n.T(lang, i18n.NoModelConfigured) + ", or providers: in .moteur/config.yaml"
	}
	return i18n.T(lang, i18n.NoModelConfigured) + ", ou une section providers: dans .moteur/config.yaml"
}
