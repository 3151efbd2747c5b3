package main

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
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
	// approvalTimeout is how long a call waits for an answer.
	approvalTimeout time.Duration
	// trustProject trusts the project's .mcp.json and hooks as they are now.
	trustProject bool
	// interactive: a person is at the terminal (chat): Notification hooks
	// run. Set by the command, not a flag.
	interactive bool
	// agent is --agent: the custom agent to run as (a built-in or stored
	// one, by id or name).
	agent string
	// effort is --effort: the reasoning effort over the agent's.
	effort string
	// web is --web and --no-web.
	web webFlags
	// changed reports whether a flag was given (cobra's FlagSet.Changed):
	// an agent's max_iterations holds unless --max-iterations is.
	changed func(name string) bool
}

// addAgentFlags adds the agent flags to cmd, their usage in the run's
// language.
func (c *cli) addAgentFlags(cmd *cobra.Command, f *agentFlags) {
	addAgentFlagsIn(c.lang, cmd, f)
	c.addEffortFlag(cmd, &f.effort)
	c.addWebFlags(cmd, &f.web)
}

func addAgentFlagsIn(l i18n.Lang, cmd *cobra.Command, f *agentFlags) {
	fl := cmd.Flags()
	f.changed = fl.Changed
	fl.StringVar(&f.agent, "agent", "", i18n.Tr(l, "run as the agent `NAME` (built-in or made with moteur agents create; by id or name): its model,\n"+
		"temperature, max tokens, access level, tools, knowledge bases and prompt; a quick-answer agent answers as moteur ask does"))
	fl.StringVar(&f.session, "session", "", i18n.Tr(l, "continue this stored session (an unknown id is an error; --new-session ID starts one under a chosen id, -c the project's latest)"))
	fl.IntVar(&f.maxIterations, "max-iterations", engine.DefaultMaxIterations, i18n.Tr(l, "most model rounds in a turn"))
	fl.DurationVar(&f.approvalTimeout, "approval-timeout", engine.DefaultApprovalTimeout,
		i18n.Tr(l, "how long a call waits for the user's answer before it is refused (e.g. 30s, 2h)"))
	fl.StringVar(&f.mode, "mode", "", i18n.Tr(l, "access mode for this run: read_only, confirm or auto_write\n"+
		"(default: the config file's mode; never looser than the organisation policy's min_mode)"))
	fl.StringArrayVar(&f.allow, "allow", nil, i18n.Tr(l, "allow the calls this rule covers without asking, for this run only,\n"+
		"e.g. --allow 'shell_exec(git status*)' (repeatable; deny rules still win)"))
	fl.StringVar(&f.sandbox, "sandbox", shell.SandboxAuto, i18n.Tr(l, "isolation of shell_exec commands: auto (bubblewrap when it works here, else none),\n"+
		"bwrap (bubblewrap or no shell commands at all) or none (the user's full rights);\n"+
		"the restricted and airgapped profiles require bwrap"))
	fl.BoolVar(&f.trustProject, "trust-project", false, i18n.Tr(l, "trust the project's .mcp.json and its configuration's hooks as they are now, and remember it, so that they run\n"+
		"(on a terminal Moteur asks instead; the question comes back whenever the file changes)"))
	fl.StringSliceVar(&f.kb, "kb", nil, i18n.Tr(l, "give the agent the knowledge tools (search_knowledge, read_document, list_documents)\n"+
		"over these knowledge bases (repeat or separate with commas)"))
}

// agentHelp is the part of run's and chat's help about configuration and
// approvals. The catalogue also holds run's and chat's whole long help,
// which this is part of.
func (c *cli) agentHelp() string {
	return c.tr("Tools: the agent reads, writes and searches the project's files (read_file, write_file,\n" +
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
		"refused at once and the turn goes on; allow such calls beforehand with --allow or --mode\n" +
		"(or, with moteur run --wait-approvals, answer them from another terminal). A request can also\n" +
		"be answered from another terminal with moteur sessions approve / deny (moteur sessions pending).\n")
}

// checkAgentFlags checks the flags run and chat share, before anything is
// read or created: a mistake in the command line is reported first.
func (c *cli) checkAgentFlags(g *globalFlags, f *agentFlags) error {
	if _, err := c.langFlag(g.lang); err != nil {
		return err
	}
	if f.approvalTimeout <= 0 {
		return usageErrorf(c.tr("invalid --approval-timeout %s: want a positive duration (e.g. 30s, 10m)"), f.approvalTimeout)
	}
	if err := c.checkWebFlags(f.web); err != nil {
		return err
	}
	if f.maxIterations < 1 {
		return usageErrorf(c.tr("invalid --max-iterations %d: want 1 or more"), f.maxIterations)
	}
	if f.session != "" {
		if err := c.checkSessionID(f.session); err != nil {
			return err
		}
	}
	if _, err := c.modeFlag(f.mode); err != nil {
		return err
	}
	for _, r := range f.allow {
		if err := c.checkAllowRule(r); err != nil {
			return err
		}
	}
	switch f.sandbox {
	case shell.SandboxAuto, shell.SandboxBwrap, shell.SandboxNone:
	default:
		return usageErrorf(c.tr("invalid --sandbox %q: want auto, bwrap or none"), f.sandbox)
	}
	return nil
}

// modeFlag parses --mode; "" when it was not given.
func (c *cli) modeFlag(s string) (policy.Mode, error) { return modeFlagIn(c.lang, s) }

func modeFlagIn(l i18n.Lang, s string) (policy.Mode, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	m, err := policy.ParseMode(s)
	if err != nil {
		return "", usageErrorf(i18n.Tr(l, "invalid --mode %q: want read_only, confirm or auto_write"), s)
	}
	return m, nil
}

// checkAllowRule compiles an --allow rule as the permissions will.
func (c *cli) checkAllowRule(r string) error {
	_, err := policy.NewPermissions(policy.PermissionsConfig{Rules: policy.Rules{Allow: []string{r}}})
	if err == nil {
		return nil
	}
	var re *policy.RuleError
	if errors.As(err, &re) {
		err = re.Err
	}
	return usageErrorf(c.tr("invalid --allow %q: %v"), r, err)
}

// langFlag checks --lang strictly, since a typo there is a mistake the user
// can fix; "" when not given.
func (c *cli) langFlag(flag string) (i18n.Lang, error) { return langFlagIn(c.lang, flag) }

func langFlagIn(l i18n.Lang, flag string) (i18n.Lang, error) {
	if flag == "" {
		return "", nil
	}
	switch strings.ToLower(strings.TrimSpace(flag)) {
	case "fr":
		return i18n.FR, nil
	case "en":
		return i18n.EN, nil
	}
	return "", usageErrorf(i18n.Tr(l, "invalid --lang %q: want fr or en"), flag)
}
