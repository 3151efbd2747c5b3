package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/suggest"
	"github.com/moteur/moteur/tools"
)

// cli is the process as the commands see it: the environment, the standard
// streams and a few seams. Commands read nothing of the process directly,
// so tests run the real command tree in process with their own values.
type cli struct {
	env    func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// stdinTTY reports that stdin is a terminal: a person types there.
	stdinTTY bool

	// newSessionID names a new session.
	newSessionID func() (string, error)
	// workDir is the project root of a run.
	workDir func() (string, error)
	// interrupts delivers Ctrl-C to the command from the call until stop
	// (notifyInterrupts in the process; a channel of the test's in tests).
	interrupts func() (ch <-chan os.Signal, stop func())
	// now tells the time (relative dates of sessions list).
	now func() time.Time
	// tools are the constructors of the tools added after the built-ins
	// (extraTools; tests add their own).
	tools []func() tools.Tool
	// retryDelays are the waits before the retries of a quick answer's
	// model (nil: the engine's default; tests shorten them).
	retryDelays []time.Duration
	// lang is the language of the run's texts (chooseLang).
	lang i18n.Lang
}

func newCLI(env func(string) string, stdin io.Reader, stdout, stderr io.Writer) *cli {
	return &cli{
		env: env, stdin: stdin, stdout: stdout, stderr: stderr, stdinTTY: isTerminal(stdin),
		newSessionID: func() (string, error) { return app.NewSessionID(time.Now(), rand.Reader) },
		workDir:      os.Getwd,
		interrupts:   notifyInterrupts,
		now:          time.Now,
		tools:        slices.Clone(extraTools),
	}
}

// execute runs the command line args and returns the exit status. It is
// main without the process: tests call it with their own environment and
// streams.
func execute(ctx context.Context, args []string, env func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newCLI(env, stdin, stdout, stderr).execute(ctx, args)
}

func (c *cli) execute(ctx context.Context, args []string) int {
	c.chooseLang(args)
	root := c.rootCmd()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	err = c.rootUnknown(root, err)
	code, hint := exitStatus(err)
	if err != nil {
		fmt.Fprintf(c.stderr, "moteur: %v\n", err)
		if hint {
			if cmd == nil {
				cmd = root
			}
			fmt.Fprintln(c.stderr, c.trf("Run '%s --help' for usage.", cmd.CommandPath()))
		}
	}
	return code
}

// globalFlags are the flags every command accepts.
type globalFlags struct {
	lang string
}

func (c *cli) rootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "moteur",
		Short: c.tr("Run tool-using LLM agents over your project"),
		Long: c.tr("moteur runs tool-using LLM agents over a project's files, with an audit log of everything they do,\n" +
			"and answers questions from your documents: moteur kb add NAME FOLDER, then moteur ask QUESTION\n" +
			"(works with no model at all) or moteur run --kb NAME PROMPT.\n\n" +
			"Model: set MOTEUR_BASE_URL, MOTEUR_MODEL and MOTEUR_API_KEY (any OpenAI-compatible server),\n" +
			"or OPENAI_BASE_URL and OPENAI_API_KEY, or list providers: in .moteur/config.yaml or\n" +
			"$XDG_CONFIG_HOME/moteur/config.yaml (see moteur run --help). An organisation policy\n" +
			"($MOTEUR_POLICY, default /etc/moteur/policy.yaml) applies on top of everything.\n\n" +
			"Data goes to $MOTEUR_HOME, default $XDG_DATA_HOME/moteur:\n" +
			"moteur.db (the sessions and knowledge bases), audit/ (one hash-chained audit log per session, never deleted),\n" +
			"transcripts/ (each session's events as JSON lines), checkpoints/ (the content files had before\n" +
			"the agent changed them, which moteur sessions rewind restores)."),
		// Errors are printed once, by execute, in our own format; cobra
		// would print them (and the whole usage text) a second time.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &statusError{code: exitUsage, hint: true, err: c.flagError(cmd, err)}
	})
	root.Version = currentVersion().String()
	root.SetVersionTemplate("moteur {{.Version}}\n")
	root.PersistentFlags().StringVar(&g.lang, "lang", "", c.tr("language of messages and prompts: fr or en (default: the config file's lang, else $MOTEUR_LANG, else fr)"))
	root.AddCommand(c.runCmd(g), c.chatCmd(g), c.sessionsCmd(g), c.askCmd(g), c.kbCmd(g), c.mcpCmd(g), c.skillsCmd(g), c.agentsCmd(g), c.keysCmd(g), c.serveCmd(g), c.auditCmd(), c.dbCmd(), c.versionCmd(), c.demoCmd(g))
	c.suggestSubcommands(root)
	c.translateCobra(root)
	return root
}

// suggestSubcommands makes an unknown subcommand, at every level of the
// tree, a usage error that names the closest ones: cobra suggests only at
// the root, and a group command's NoArgs says nothing of its subcommands.
// Aliases and prefixes count, as in cobra's own suggestions.
func (c *cli) suggestSubcommands(cmd *cobra.Command) {
	cmd.SuggestionsMinimumDistance = 2
	// The root's unknown commands are cobra's own, with its suggestions:
	// an Args of the root's would be shadowed by its help.
	if cmd.HasSubCommands() && cmd.HasParent() {
		orig := cmd.Args
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return c.unknownCommand(cmd, args[0])
			}
			if orig != nil {
				return orig(cmd, args)
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		c.suggestSubcommands(sub)
	}
}

// rootUnknown rewords cobra's error for an unknown command at the root
// (it comes from cobra's own check, before any Args of ours runs) as
// unknownCommand does everywhere else.
func (c *cli) rootUnknown(root *cobra.Command, err error) error {
	var name, path string
	if err == nil {
		return nil
	}
	if _, serr := fmt.Sscanf(err.Error(), "unknown command %q for %q", &name, &path); serr != nil || path != root.CommandPath() {
		return err
	}
	return c.unknownCommand(root, name)
}

// unknownCommand is the usage error of name, not a subcommand of cmd.
func (c *cli) unknownCommand(cmd *cobra.Command, name string) error {
	msg := c.trf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += c.trf("; did you mean %s?", c.quotedList(s))
	}
	return usageErrorf("%s", msg)
}

// flagError rewrites the flag parser's errors for a person: a value that
// does not parse says what the flag wants ("--limit: "abc" is not a
// number", not strconv's words), and an unknown flag names the closest of
// the command's flags.
func (c *cli) flagError(cmd *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		return fmt.Errorf("--%s: %s", bad.GetFlag().Name, c.badValue(bad))
	}
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedName() != "" {
		if s := closestFlags(cmd, unknown.GetSpecifiedName()); len(s) > 0 {
			return fmt.Errorf("%w%s", err, c.trf("; did you mean %s?", c.quotedList(s)))
		}
	}
	return err
}

// badValue says why the value of a flag was refused, in the terms of the
// flag's type.
func (c *cli) badValue(e *pflag.InvalidValueError) string {
	v := e.GetValue()
	switch t := e.GetFlag().Value.Type(); {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return c.trf("%q is not a number (want a whole number, e.g. 10)", v)
	case strings.HasPrefix(t, "float"):
		return c.trf("%q is not a number", v)
	case t == "duration":
		return c.trf("%q is not a duration (e.g. 30s, 5m, 1h30m)", v)
	case t == "bool":
		return c.trf("%q is not true or false", v)
	}
	var choice *notAChoiceError
	if errors.As(e, &choice) {
		return choice.in(c.lang)
	}
	return e.Unwrap().Error()
}

// closestFlags are the long names of cmd's flags within two edits of name,
// or that start with it.
func closestFlags(cmd *cobra.Command, name string) []string {
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		if suggest.Distance(name, f.Name) <= 2 || len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			out = append(out, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return out
}

// quotedList is names quoted, as alternatives: "a" or "b".
func (c *cli) quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, c.tr(" or "))
}

// choiceValue is a string flag whose value must be one of choices: any
// other is refused by the parser, a usage error (exit 2) that lists them.
// Use it with Flags().Var(newChoice(&v, def, choices...), name, usage).
type choiceValue struct {
	p       *string
	choices []string
}

func newChoice(p *string, def string, choices ...string) *choiceValue {
	*p = def
	return &choiceValue{p: p, choices: choices}
}

func (v *choiceValue) Set(s string) error {
	if !slices.Contains(v.choices, s) {
		return &notAChoiceError{value: s, choices: v.choices}
	}
	*v.p = s
	return nil
}

func (v *choiceValue) String() string { return *v.p }
func (v *choiceValue) Type() string   { return "string" }

// notAChoiceError is a choiceValue's refusal of value. Set knows no
// language: the flag's error is worded in the run's by badValue, through
// in.
type notAChoiceError struct {
	value   string
	choices []string
}

func (e *notAChoiceError) Error() string { return e.in(i18n.EN) }

// in is the refusal in language l.
func (e *notAChoiceError) in(l i18n.Lang) string {
	return i18n.Trf(l, "%q is not one of %s", e.value, strings.Join(e.choices, ", "))
}
