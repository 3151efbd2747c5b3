package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/shell"
)

// maxStdinPrompt bounds a prompt read from standard input: far above any
// context window, it only stops an endless pipe from eating memory.
const maxStdinPrompt = 16 << 20

type runFlags struct {
	agentFlags
	json bool
	// waitApprovals: off a terminal, requests wait for an answer from
	// another process instead of being refused.
	waitApprovals bool
	// skill is --skill: the prompt is the arguments of that skill.
	skill string
}

func (c *cli) runCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: c.tr("Run one agent turn non-interactively"),
		Long: c.tr("Run one agent turn on PROMPT (its words joined with spaces) and print the answer.\n"+
			"With PROMPT \"-\", or none and standard input not a terminal, the prompt is read from standard input.\n\n"+
			"With --session ID the turn continues that stored session, even one whose process was killed\n"+
			"(a tool call left without a result is answered as unfinished); an ID that is not stored is an\n"+
			"error that lists the closest stored ids. --continue (-c) continues the most recent session of\n"+
			"this project (the working directory); --new-session ID starts a new session under that id.\n"+
			"A session is used by one process at a time. When the turn ends, standard error says\n"+
			"\"session: ID\", whatever the outcome.\n\n") +
			c.agentHelp() + "\n" +
			c.tr("With --wait-approvals, a request asked when standard input is not a terminal is not refused: it\n"+
				"waits, up to the approval timeout (--approval-timeout, 10 min by default), for an answer given from another terminal with\n"+
				"moteur sessions approve ID N or moteur sessions deny ID N (moteur sessions pending lists them),\n"+
				"and standard error says so, once per request. On a terminal the question is asked as usual, and\n"+
				"an answer given elsewhere first counts too.\n\n"+
				"Ctrl-C stops the turn at once: the model is asked nothing more, and the session records the\n"+
				"turn as cancelled.\n\n"+
				"Exit status: 0 when the turn completed (refused calls included), 1 on an error, 2 on bad usage\n"+
				"(an unknown --session included), 130 when Ctrl-C interrupted the turn."),
		Example: c.tr("  moteur run \"what does this project do?\"\n" +
			"  git diff | moteur run --json -\n" +
			"  moteur run --mode read_only \"review the last commit\"\n" +
			"  moteur run --agent juriste \"what does clause 4 allow?\"\n" +
			"  moteur run --allow 'shell_exec(go test*)' \"fix the failing test\"\n" +
			"  moteur run --mode confirm --wait-approvals \"tidy the docs\" </dev/null\n" +
			"  moteur run --session s-20260101T120000-0123456789abcdef \"and the tests?\"\n" +
			"  moteur run -c \"and the tests?\""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.run(cmd.Context(), g, f, args))
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, c.tr("print every event as one JSON object per line, and nothing else, on stdout"))
	cmd.Flags().StringVar(&f.skill, "skill", "", c.tr("run the skill NAME with PROMPT as its arguments, as /NAME PROMPT does in chat"))
	cmd.Flags().BoolVar(&f.waitApprovals, "wait-approvals", false, c.tr("when standard input is not a terminal, let permission requests wait for an answer\n"+
		"from another terminal (moteur sessions approve / deny) instead of refusing them"))
	c.addAgentFlags(cmd, &f.agentFlags)
	c.addSessionFlags(cmd, &f.session)
	return cmd
}

// exitInterrupted is the exit status of a run that Ctrl-C interrupted, as
// shells report a process SIGINT ended (128 + 2).
const exitInterrupted = 130

// view shows a turn's events as they arrive: plain text or JSON lines.
type view interface {
	event(event.Event) error
	finish() error
}

func (c *cli) run(ctx context.Context, g *globalFlags, f *runFlags, args []string) error {
	// Usage first: a mistake in the command line is reported before
	// anything is read or created.
	if err := c.checkAgentFlags(g, &f.agentFlags); err != nil {
		return err
	}
	prompt, err := c.prompt(args)
	if err != nil {
		return err
	}
	o, err := c.agentOptions(ctx, g, &f.agentFlags)
	if err != nil {
		return err
	}
	if quickAgent(o.Agent) {
		if f.skill != "" {
			return usageErrorf(c.tr("--skill: the agent %s is a quick-answer agent, which runs no skill"), o.Agent.ID)
		}
		return c.quickRun(ctx, o, prompt, f.json)
	}
	a, err := c.openAgent(ctx, o, &f.agentFlags)
	if err != nil {
		return err
	}
	// Off a terminal the flag lets requests wait; on one, the terminal asks.
	a.approvals.waitElsewhere = f.waitApprovals
	if c.stdinTTY {
		// The terminal is read only once a request is asked there.
		var lines *lineReader
		defer func() {
			if lines != nil {
				lines.stop()
			}
		}()
		a.useTerminal(func() *lineReader {
			if lines == nil {
				lines = readLines(c.stdin)
			}
			return lines
		})
	}

	// Ctrl-C cancels the turn, which the engine ends at once (no further
	// model request; TurnCompleted cancelled in the log). Once it has been
	// delivered, default handling comes back so that a second Ctrl-C kills
	// the process if recording that end takes too long for the user.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	interrupted := c.cancelOnInterrupt(ctx, cancel)

	var v view
	if f.json {
		v = a.view(newJSONView(c.stdout), true)
	} else {
		v = a.view(c.newRenderer(c.stdout, a.stderr, isTerminal(c.stdout), isTerminal(c.stderr)), false)
	}
	in := engine.Input{Text: prompt}
	if f.skill != "" {
		if in, err = skillInput(a.Session, f.skill, prompt); err != nil {
			_ = a.Close()
			return usageErrorf("--skill %s: %v", f.skill, err)
		}
	}
	turnErr, viewErr := runTurn(ctx, a.Engine, a.events, a.ID, in, v)
	closeErr := errors.Join(a.end("other"), a.Close())
	// Whatever the outcome, the user learns which session to continue;
	// standard output keeps only the answer (or the JSON events, which
	// carry the id already).
	fmt.Fprintf(a.stderr, "session: %s\n", a.ID)
	switch {
	case turnErr != nil && ctx.Err() != nil && errors.Is(turnErr, ctx.Err()):
		err := fmt.Errorf(c.tr("interrupted: %w"), turnErr)
		if interrupted() {
			return &statusError{code: exitInterrupted, err: err}
		}
		return err // a cancellation from outside (SIGTERM): a failure
	case turnErr != nil:
		return c.turnError(turnErr)
	case closeErr != nil:
		return fmt.Errorf(c.tr("session %s: %w"), a.ID, closeErr)
	case viewErr != nil:
		return fmt.Errorf(c.tr("write output: %w"), viewErr)
	}
	return nil
}

// cancelOnInterrupt calls cancel at the first Ctrl-C before ctx ends;
// from then on Ctrl-C has its default effect again. interrupted reports
// whether a Ctrl-C was the cause of that cancellation.
func (c *cli) cancelOnInterrupt(ctx context.Context, cancel context.CancelFunc) (interrupted func() bool) {
	intr, stop := c.interrupts()
	var got atomic.Bool
	go func() {
		defer stop()
		select {
		case <-intr:
			got.Store(true)
			cancel()
		case <-ctx.Done():
		}
	}()
	return got.Load
}

// turnError is the error a failed turn reports: a send that Outbound
// refused says that nothing was sent (its message names the rule).
func (c *cli) turnError(err error) error { return turnErrorIn(c.lang, err) }

func turnErrorIn(l i18n.Lang, err error) error {
	if errors.Is(err, policy.ErrRefused) {
		return fmt.Errorf(i18n.Tr(l, "not sent: %w"), err)
	}
	return err
}

// extraTools are constructors of tools added to every session's registry
// after the built-ins. It is the one piece of package state, and it is
// empty in the moteur binary: only init functions of build-tagged files
// append to it (testtools.go, tag moteur_testtools, gives the crash test a
// tool that blocks). Each cli starts with a copy (cli.tools), which
// in-process tests extend with their own tools.
var extraTools []func() tools.Tool

// agent is a session opened for turns on the terminal: app's session, the
// engine's subscription and the approvals of its requests.
type agent struct {
	*app.Session
	// events is the engine's subscription, taken once for all the turns.
	events <-chan event.Event
	// stderr is standard error, shared by the views' notes and the
	// approval questions.
	stderr io.Writer
	// approvals answers the permission requests of every turn.
	approvals *approvals
}

// openAgent prepares the turns of the session f names (a new one when
// none), through app.Open, with o (agentOptions), and says on standard
// error what the user should know before the first turn.
func (c *cli) openAgent(ctx context.Context, o app.Options, f *agentFlags) (*agent, error) {
	o.Interactive = f.interactive
	if c.stdinTTY && !f.trustProject {
		o.ConfirmTrust = c.confirmTrust
	}
	stderr := &lockedWriter{w: c.stderr}
	o.Notify = func(line string) { fmt.Fprintln(stderr, c.trf("moteur: warning: %s", oneLine(line, 400))) }
	st, err := c.settings(o)
	if err != nil {
		return nil, err
	}
	s, err := st.Open(ctx)
	if err != nil {
		return nil, appError(err)
	}
	c.warn(s.Warnings)
	c.sandboxNote(f.sandbox, s)
	policyPath := ""
	if pol := st.Config.Policy; pol != nil {
		policyPath = pol.Path
	}
	return &agent{
		Session: s, events: s.Engine.Subscribe(), stderr: stderr,
		approvals: &approvals{eng: s.Engine, w: stderr, lang: c.lang,
			refusal: c.noTerminalRefusal(st.Permissions.Mode(), st.Floor, policyPath), timeout: f.approvalTimeout},
	}, nil
}

// end runs the session's SessionEnd hooks, within their own time: the
// turn's context may already be cancelled (Ctrl-C).
func (a *agent) end(reason string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return a.End(ctx, reason)
}

// sandboxNote tells the user, in one line on standard error, that shell
// commands run unsandboxed: always when --sandbox none asked for it, and
// on a terminal when auto found no usable bubblewrap (the reason, recorded
// in SessionStarted, says how to install it). The stricter profiles never
// run unsandboxed: they refuse the commands instead.
func (c *cli) sandboxNote(flag string, s *app.Session) {
	kind, detail := s.ShellSandbox()
	if kind != "none" {
		return
	}
	switch {
	case flag == shell.SandboxNone:
		fmt.Fprintln(c.stderr, c.tr("moteur: note: shell commands run unsandboxed (--sandbox none), with your full rights"))
	case isTerminal(c.stderr):
		fmt.Fprintln(c.stderr, c.trf("moteur: note: shell commands run unsandboxed: %s", oneLine(detail, 300)))
	}
}

// useTerminal makes the approvals ask on the terminal (standard input),
// whose lines lines gives. Without it, requests are refused at once.
func (a *agent) useTerminal(lines func() *lineReader) { a.approvals.lines = lines }

// view is v with the approvals; describe says that v does not show
// permission requests itself (the questions then say what they are about).
func (a *agent) view(v view, describe bool) view {
	a.approvals.describe = describe
	return approvingView{view: v, ap: a.approvals}
}

// prompt is the words of args joined with spaces, or standard input when
// args is "-", or empty while standard input is not a terminal.
func (c *cli) prompt(args []string) (string, error) {
	p := strings.Join(args, " ")
	dash := len(args) == 1 && args[0] == "-"
	if dash || len(args) == 0 && c.stdin != nil && !c.stdinTTY {
		p = ""
		if c.stdin != nil {
			b, err := io.ReadAll(io.LimitReader(c.stdin, maxStdinPrompt+1))
			if err != nil {
				return "", failure(fmt.Errorf(c.tr("read prompt from standard input: %w"), err))
			}
			if len(b) > maxStdinPrompt {
				return "", usageErrorf(c.tr("prompt on standard input is larger than %d MiB"), maxStdinPrompt>>20)
			}
			p = string(b)
		}
	}
	if strings.TrimSpace(p) == "" {
		return "", usageErrorf("%s", c.tr("no prompt: give it as arguments or on standard input"))
	}
	return p, nil
}

// runTurn submits prompt and renders the turn's events, read from events
// (the engine's one subscription: a channel nobody reads would block the
// engine once full), while it runs. The engine's delivery blocks on a full
// channel, so the view reads in its own goroutine for the whole turn.
func runTurn(ctx context.Context, eng *engine.Engine, events <-chan event.Event, sessionID string, in engine.Input, v view) (turnErr, viewErr error) {
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- pump(events, stop, v) }()
	turnErr = eng.SubmitInput(ctx, sessionID, in)
	close(stop)
	return turnErr, <-done
}

// pump shows events until stop is closed, then the events still buffered,
// then finishes the view. When SubmitInput returns, every event of the turn
// is already in the channel, so draining without blocking once stop is
// closed shows the whole turn; a plain select could take stop first and
// drop the end of it. It returns the view's first error.
func pump(events <-chan event.Event, stop <-chan struct{}, v view) error {
	var err error
	show := func(ev event.Event) {
		if e := v.event(ev); err == nil {
			err = e
		}
	}
	for {
		select {
		case ev := <-events:
			show(ev)
		case <-stop:
			for {
				select {
				case ev := <-events:
					show(ev)
				default:
					if e := v.finish(); err == nil {
						err = e
					}
					return err
				}
			}
		}
	}
}

// isTerminal reports whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
