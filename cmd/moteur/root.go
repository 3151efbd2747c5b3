package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
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
	root := c.rootCmd()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	code, hint := exitStatus(err)
	if err != nil {
		fmt.Fprintf(c.stderr, "moteur: %v\n", err)
		if hint {
			if cmd == nil {
				cmd = root
			}
			fmt.Fprintf(c.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
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
		Short: "Run tool-using LLM agents over your project",
		Long: "moteur runs tool-using LLM agents over a project's files, with an audit log of everything they do,\n" +
			"and answers questions from your documents: moteur kb add NAME FOLDER, then moteur ask QUESTION\n" +
			"(works with no model at all) or moteur run --kb NAME PROMPT.\n\n" +
			"Model: set MOTEUR_BASE_URL, MOTEUR_MODEL and MOTEUR_API_KEY (any OpenAI-compatible server),\n" +
			"or OPENAI_BASE_URL and OPENAI_API_KEY, or list providers: in .moteur/config.yaml or\n" +
			"$XDG_CONFIG_HOME/moteur/config.yaml (see moteur run --help). An organisation policy\n" +
			"($MOTEUR_POLICY, default /etc/moteur/policy.yaml) applies on top of everything.\n\n" +
			"Data goes to $MOTEUR_HOME, default $XDG_DATA_HOME/moteur:\n" +
			"moteur.db (the sessions and knowledge bases), audit/ (one hash-chained audit log per session, never deleted),\n" +
			"transcripts/ (each session's events as JSON lines), checkpoints/ (the content files had before\n" +
			"the agent changed them, which moteur sessions rewind restores).",
		// Errors are printed once, by execute, in our own format; cobra
		// would print them (and the whole usage text) a second time.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &statusError{code: exitUsage, hint: true, err: err}
	})
	root.PersistentFlags().StringVar(&g.lang, "lang", "", "language of messages and prompts: fr or en (default: the config file's lang, else $MOTEUR_LANG, else fr)")
	root.AddCommand(c.runCmd(g), c.chatCmd(g), c.sessionsCmd(g), c.askCmd(g), c.kbCmd(g), c.mcpCmd(g), c.skillsCmd(g), c.agentsCmd(g), c.keysCmd(g), c.serveCmd(g), c.auditCmd(), c.versionCmd(), c.demoCmd(g))
	return root
}
