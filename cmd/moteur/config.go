package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/routing"
	"github.com/moteur/moteur/tools/shell"
)

// agentFlags are the flags of the commands that run agent turns (run and
// chat).
type agentFlags struct {
	session       string
	maxIterations int
	// mode is --mode as typed; "" when not given (the configuration's).
	mode string
	// allow are the --allow rules, added to the configuration's for this
	// process only.
	allow []string
	// sandbox is --sandbox: auto, bwrap or none.
	sandbox string
	// kb are the knowledge bases whose tools the agent gets (--kb).
	kb []string
}

func addAgentFlags(cmd *cobra.Command, f *agentFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "session to continue, or to start under this id (default: a new session)")
	fl.IntVar(&f.maxIterations, "max-iterations", engine.DefaultMaxIterations, "most model rounds in a turn")
	fl.StringVar(&f.mode, "mode", "", "access mode for this run: read_only, confirm or auto_write\n"+
		"(default: the config file's mode; never looser than the organisation policy's min_mode)")
	fl.StringArrayVar(&f.allow, "allow", nil, "allow the calls this rule covers without asking, for this run only,\n"+
		"e.g. --allow 'shell_exec(git status*)' (repeatable; deny rules still win)")
	fl.StringVar(&f.sandbox, "sandbox", shell.SandboxAuto, "isolation of shell_exec commands: auto (bubblewrap when it works here, else none),\n"+
		"bwrap (bubblewrap or no shell commands at all) or none (the user's full rights);\n"+
		"the restricted and airgapped profiles require bwrap")
	fl.StringSliceVar(&f.kb, "kb", nil, "give the agent the knowledge tools (search_knowledge, read_document, list_documents)\n"+
		"over these knowledge bases (repeat or separate with commas)")
}

// agentHelp is the part of run's and chat's help about configuration and
// approvals.
const agentHelp = "Tools: the agent reads, writes and searches the project's files (read_file, write_file,\n" +
	"edit_file, list_files, glob, grep: nothing outside the project root), runs shell commands\n" +
	"(shell_exec) and plans (thinking, todo_write). Before a file tool changes a file, its content\n" +
	"is kept in $MOTEUR_HOME/checkpoints: moteur sessions rewind puts files back as they were.\n" +
	"Shell commands run in bubblewrap where it works (--sandbox auto): the project writable, the\n" +
	"rest of the filesystem read-only, no network. --sandbox bwrap refuses commands without it;\n" +
	"--sandbox none runs them with your full rights. The restricted and airgapped profiles require\n" +
	"bwrap. A rewind cannot undo what a shell command changed.\n\n" +
	"Configuration: ~/.config/moteur/config.yaml ($XDG_CONFIG_HOME/moteur), then the project's\n" +
	".moteur/config.yaml, then MOTEUR_BASE_URL / MOTEUR_MODEL / MOTEUR_API_KEY (one more provider,\n" +
	"placed first), then the organisation policy ($MOTEUR_POLICY, default /etc/moteur/policy.yaml),\n" +
	"which nothing loosens. A file or a policy that cannot be read stops the command: nothing runs.\n\n" +
	"Approvals: a tool call that the rules or the mode say to ask about is shown on standard error\n" +
	"with its risk, and when standard input is a terminal you answer there:\n" +
	"  y  run it            n  refuse it (\"n not that folder\" tells the model why)\n" +
	"  a  run it, and the same call again without asking for the rest of the session\n" +
	"  w  run it with the network (sandboxed shell commands only)\n" +
	"When standard input is not a terminal (a script, CI, a pipe), nobody can answer: the call is\n" +
	"refused at once and the turn goes on; allow such calls beforehand with --allow or --mode.\n"

// checkAgentFlags checks the flags run and chat share, before anything is
// read or created: a mistake in the command line is reported first.
func checkAgentFlags(g *globalFlags, f *agentFlags) error {
	if _, err := langFlag(g.lang); err != nil {
		return err
	}
	if f.maxIterations < 1 {
		return usageErrorf("invalid --max-iterations %d: want 1 or more", f.maxIterations)
	}
	if f.session != "" {
		if err := checkSessionID(f.session); err != nil {
			return err
		}
	}
	if _, err := modeFlag(f.mode); err != nil {
		return err
	}
	for _, r := range f.allow {
		if err := checkAllowRule(r); err != nil {
			return err
		}
	}
	switch f.sandbox {
	case shell.SandboxAuto, shell.SandboxBwrap, shell.SandboxNone:
	default:
		return usageErrorf("invalid --sandbox %q: want auto, bwrap or none", f.sandbox)
	}
	return nil
}

// sandboxMode is the shell sandbox of a run: --sandbox, except that the
// profiles stricter than standard require bubblewrap, so that auto means
// bwrap there (no shell commands where it cannot run) and none is refused.
func sandboxMode(flag string, cfg *config.Config) (string, error) {
	if cfg.Profile.Name == profile.Standard || cfg.Profile.Name == "" {
		return flag, nil
	}
	switch flag {
	case shell.SandboxNone:
		by := ""
		if cfg.Policy != nil && cfg.Policy.Profile != "" {
			by = " (set by the organisation policy " + cfg.Policy.Path + ")"
		}
		return "", usageErrorf("--sandbox none is not allowed: the %s profile%s requires the bubblewrap sandbox for shell commands",
			cfg.Profile.Name, by)
	case shell.SandboxAuto:
		return shell.SandboxBwrap, nil
	}
	return flag, nil
}

// modeFlag parses --mode; "" when it was not given.
func modeFlag(s string) (policy.Mode, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	m, err := policy.ParseMode(s)
	if err != nil {
		return "", usageErrorf("invalid --mode %q: want read_only, confirm or auto_write", s)
	}
	return m, nil
}

// checkAllowRule compiles an --allow rule as the permissions will.
func checkAllowRule(r string) error {
	_, err := policy.NewPermissions(policy.PermissionsConfig{Rules: policy.Rules{Allow: []string{r}}})
	if err == nil {
		return nil
	}
	var re *policy.RuleError
	if errors.As(err, &re) {
		err = re.Err
	}
	return usageErrorf("invalid --allow %q: %v", r, err)
}

// userConfigDir is $XDG_CONFIG_HOME/moteur, XDG_CONFIG_HOME defaulting to
// ~/.config; "" when neither is known (no user configuration then).
func userConfigDir(env func(string) string) string {
	base := env("XDG_CONFIG_HOME")
	// The XDG spec says relative values are invalid and to be ignored.
	if base == "" || !filepath.IsAbs(base) {
		home := env("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "moteur")
}

// settings is what a run starts from: the merged configuration with the
// command line applied.
type settings struct {
	cfg  *config.Config
	lang i18n.Lang
	// mode is the access mode in force: --mode, else the configuration's
	// (already raised to the organisation's min_mode).
	mode  policy.Mode
	floor policy.Mode // the organisation's min_mode; "" for none
	perms *policy.Permissions
}

// loadSettings reads the configuration of the project at root and applies
// the flags. A configuration or policy that cannot be read is a failure
// (exit 1): nothing may run without the rules it holds. No provider at all
// when needModel, or --mode looser than the organisation allows, is bad
// usage (exit 2).
func (c *cli) loadSettings(root string, g *globalFlags, f *agentFlags, needModel bool) (*settings, error) {
	cfg, err := config.Load(config.LoadOptions{ProjectRoot: root, UserDir: userConfigDir(c.env), Getenv: c.env})
	if err != nil {
		return nil, failure(err)
	}
	// What the project's file asked for and did not get, or grants: the
	// user should know before anything runs.
	for _, n := range cfg.Notices {
		fmt.Fprintf(c.stderr, "moteur: note: %s\n", oneLine(n, 500))
	}
	s := &settings{cfg: cfg, mode: cfg.Mode}
	if s.lang, err = resolveLang(g.lang, cfg.Lang, c.env); err != nil {
		return nil, err
	}
	if len(cfg.Providers) == 0 && needModel {
		return nil, configError(errors.New(noModelMessage(s.lang)))
	}
	if cfg.Policy != nil {
		s.floor = cfg.Policy.MinMode
	}
	if m, _ := modeFlag(f.mode); m != "" {
		if s.floor != "" && s.floor.Stricter(m) {
			return nil, usageErrorf("--mode %s is looser than min_mode %s of the organisation policy %s", m, s.floor, cfg.Policy.Path)
		}
		s.mode = m
	}
	rules := cfg.Permissions
	rules.Allow = append(append([]string(nil), rules.Allow...), f.allow...)
	pc := policy.PermissionsConfig{Rules: rules, Mode: s.mode, Root: root, Floor: s.floor}
	if cfg.Policy != nil {
		pc.DeniedTools = cfg.Policy.DeniedTools
	}
	if s.perms, err = policy.NewPermissions(pc); err != nil {
		return nil, failure(err)
	}
	return s, nil
}

// noModelMessage says, in one line, how to configure a model.
func noModelMessage(lang i18n.Lang) string {
	if lang.Normalize() == i18n.EN {
		return i18n.T(lang, i18n.NoModelConfigured) + ", or providers: in .moteur/config.yaml"
	}
	return i18n.T(lang, i18n.NoModelConfigured) + ", ou une section providers: dans .moteur/config.yaml"
}

// providers makes one client per configured provider, in order, and the
// router over them: nil for a single provider that is not local (the
// engine sends to Deps.Provider alone). A single local provider still gets
// a router, which is what tells the engine that it may receive classified
// content.
func providers(cfg *config.Config) (first *openai.Client, router *routing.Router, err error) {
	var cands []routing.Candidate
	for _, p := range cfg.Providers {
		cl, err := openai.New(openai.Config{
			Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey, Model: p.Model, NoThinking: p.NoThinking,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("provider %s (%s): %w", p.Name, p.Source, err)
		}
		if first == nil {
			first = cl
		}
		cands = append(cands, routing.Candidate{Provider: cl, Endpoint: cl.Endpoint(), Local: p.Local})
	}
	if len(cands) > 1 || cands[0].Local {
		if router, err = routing.New(routing.Config{Candidates: cands}); err != nil {
			return nil, nil, err
		}
	}
	return first, router, nil
}

// langFlag checks --lang strictly, since a typo there is a mistake the user
// can fix; "" when not given.
func langFlag(flag string) (i18n.Lang, error) {
	if flag == "" {
		return "", nil
	}
	switch strings.ToLower(strings.TrimSpace(flag)) {
	case "fr":
		return i18n.FR, nil
	case "en":
		return i18n.EN, nil
	}
	return "", usageErrorf("invalid --lang %q: want fr or en", flag)
}

// resolveLang picks the language: the --lang flag, else the configuration's
// lang, else MOTEUR_LANG (read leniently), else French.
func resolveLang(flag, configured string, env func(string) string) (i18n.Lang, error) {
	l, err := langFlag(flag)
	switch {
	case err != nil:
		return "", err
	case l != "":
		return l, nil
	case configured != "":
		return i18n.Parse(configured), nil
	}
	return i18n.Parse(env("MOTEUR_LANG")), nil
}
