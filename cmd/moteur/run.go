package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
	"github.com/moteur/moteur/tools/plan"
	"github.com/moteur/moteur/tools/shell"
)

// maxStdinPrompt bounds a prompt read from standard input: far above any
// context window, it only stops an endless pipe from eating memory.
const maxStdinPrompt = 16 << 20

type runFlags struct {
	agentFlags
	json bool
}

func (c *cli) runCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "Run one agent turn non-interactively",
		Long: "Run one agent turn on PROMPT (its words joined with spaces) and print the answer.\n" +
			"With PROMPT \"-\", or none and standard input not a terminal, the prompt is read from standard input.\n\n" +
			"With --session ID the turn continues that stored session, even one whose process was killed\n" +
			"(a tool call left without a result is answered as unfinished); an ID not stored yet starts a\n" +
			"new session under that id. A session is used by one process at a time.\n\n" +
			agentHelp + "\n" +
			"Exit status: 0 when the turn completed (refused calls included), 1 on an error, 2 on bad usage.",
		Example: "  moteur run \"what does this project do?\"\n" +
			"  git diff | moteur run --json -\n" +
			"  moteur run --mode read_only \"review the last commit\"\n" +
			"  moteur run --allow 'shell_exec(go test*)' \"fix the failing test\"\n" +
			"  moteur run --session s-20260101T120000-0123456789abcdef \"and the tests?\"",
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.run(cmd.Context(), g, f, args))
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print every event as one JSON object per line, and nothing else, on stdout")
	addAgentFlags(cmd, &f.agentFlags)
	return cmd
}

// view shows a turn's events as they arrive: plain text or JSON lines.
type view interface {
	event(event.Event) error
	finish() error
}

func (c *cli) run(ctx context.Context, g *globalFlags, f *runFlags, args []string) error {
	// Usage first: a mistake in the command line is reported before
	// anything is read or created.
	if err := checkAgentFlags(g, &f.agentFlags); err != nil {
		return err
	}
	prompt, err := c.prompt(args)
	if err != nil {
		return err
	}
	a, err := c.openAgent(ctx, g, &f.agentFlags)
	if err != nil {
		return err
	}
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

	// Ctrl-C cancels the turn, which the engine closes gracefully (rescue
	// synthesis, TurnCompleted in the log). Once it has been delivered,
	// default handling comes back so that a second Ctrl-C kills the process
	// if that closing takes too long for the user.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr, stopIntr := c.interrupts()
	go func() {
		defer stopIntr()
		select {
		case <-intr:
			cancel()
		case <-ctx.Done():
		}
	}()

	var v view
	if f.json {
		v = a.view(newJSONView(c.stdout), true)
	} else {
		v = a.view(newRenderer(c.stdout, a.stderr, isTerminal(c.stdout), isTerminal(c.stderr)), false)
	}
	turnErr, viewErr := runTurn(ctx, a.eng, a.events, a.id, prompt, v)
	closeErr := a.close()
	switch {
	case turnErr != nil && ctx.Err() != nil && errors.Is(turnErr, ctx.Err()):
		return fmt.Errorf("interrupted: %w", turnErr)
	case turnErr != nil:
		return turnError(turnErr)
	case closeErr != nil:
		return fmt.Errorf("session %s: %w", a.id, closeErr)
	case viewErr != nil:
		return fmt.Errorf("write output: %w", viewErr)
	}
	return nil
}

// turnError is the error a failed turn reports: a send that Outbound
// refused says that nothing was sent (its message names the rule).
func turnError(err error) error {
	if errors.Is(err, policy.ErrRefused) {
		return fmt.Errorf("not sent: %w", err)
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

// sessionTools are the tools of one session: the planning tools, the file
// tools, shell_exec, then the extra ones.
type sessionTools struct {
	reg   *tools.Registry
	files *files.Set // closed with the session
	shell *shell.Exec
}

// newSessionTools makes the tools of a session in the project at root: the
// file tools confined to root, saving what they replace in blobs (so that
// a rewind can bring it back), and shell_exec isolated as sandbox says
// (shell.SandboxAuto, SandboxBwrap or SandboxNone).
func newSessionTools(root string, blobs effect.Blobs, sandbox string, cl *classify.Classifier, extra []func() tools.Tool) (_ *sessionTools, err error) {
	reg := tools.NewRegistry(tools.Config{})
	if err := plan.Register(reg); err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	// The classify paths of the configuration: a file under one makes the
	// session sensitive as soon as a tool's result draws on it.
	classified := func(rel string) (string, bool) {
		m, ok := cl.Path(root, filepath.FromSlash(rel))
		return m.Rule, ok
	}
	// The markings of the configuration: a file whose text carries one
	// makes the session sensitive once a tool shows any of it.
	marked := func(text string) (string, bool) {
		m, ok := cl.Text(text)
		return m.Marking, ok
	}
	fs, err := files.New(files.Config{Root: root, Blobs: blobs, Classify: classified, Markings: marked})
	if err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	st := &sessionTools{reg: reg, files: fs}
	defer func() {
		if err != nil {
			_ = st.close()
		}
	}()
	for _, t := range fs.Tools() {
		if err := reg.Register(t); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
	}
	if st.shell, err = shell.New(shell.Config{Root: root, Sandbox: sandbox}); err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	if err := reg.Register(st.shell); err != nil {
		return nil, fmt.Errorf("register tools: %w", err)
	}
	for _, newTool := range extra {
		if err := reg.Register(newTool()); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
	}
	return st, nil
}

// sandbox describes the isolation of shell commands, for SessionStarted.
func (st *sessionTools) sandbox() *effect.Sandbox {
	kind, detail := st.shell.Describe()
	iso := st.shell.Isolation()
	return &effect.Sandbox{
		Kind: kind, Detail: detail,
		UserNamespace: iso.UserNamespace, UID: iso.UID, Capabilities: iso.Capabilities,
		NoNewPrivs: iso.NoNewPrivs, Seccomp: iso.Seccomp, ReadOnly: iso.ReadOnly,
	}
}

// close releases the file tools' root.
func (st *sessionTools) close() error { return st.files.Close() }

// agent is an engine wired to one live session: the stored past restored,
// the session's lease held and its sinks open until close.
type agent struct {
	eng *engine.Engine
	// events is the engine's subscription, taken once for all the turns.
	events <-chan event.Event
	ls     *liveSession
	tools  *sessionTools
	id     string
	// model is the first provider's, the one a session starts with.
	model config.Provider
	// resumed reports that the session had stored events.
	resumed bool
	// stderr is standard error, shared by the views' notes and the
	// approval questions.
	stderr io.Writer
	// approvals answers the permission requests of every turn.
	approvals *approvals
	// kb is the knowledge-base store of --kb, nil without it.
	kb *kb.Store
}

// projectRoot is the project of a run: the working directory, absolute.
func (c *cli) projectRoot() (string, error) {
	root, err := c.workDir()
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return "", fmt.Errorf("project root: %w", err)
	}
	return root, nil
}

// openCheckpoints opens the store of the content files had before a tool
// changed them ($MOTEUR_HOME/checkpoints), which rewinds restore from,
// sealed under the at-rest key of home (loadKey; create as there: only the
// commands that run turns make a key). A data directory whose key is
// missing or replaced is refused with loadKey's message, which names the
// key file.
//
// Without a key on a read-only command, and none named by the data
// directory (a directory only earlier versions used, or none at all),
// nothing in the store was ever sealed: it is opened in clear, so that
// their sessions still rewind. What such a rewind saves stays in clear
// until the first run makes the key; that run's store then seals every
// clear blob (SealClear), as every store opened with a key does, one
// directory read when there is nothing left to seal. A failure there only
// warns: the clear blobs stay readable.
func (c *cli) openCheckpoints(ctx context.Context, home string, pol *orgpolicy.Policy, create bool) (*checkpoint.Store, error) {
	key, err := loadKey(c.env, pol, home, create)
	cfg := checkpoint.Config{Dir: checkpointDir(home), Key: key}
	switch {
	case err != nil && !create && errors.Is(err, atrest.ErrNoKey):
		// loadKey says ErrNoKey only when the data directory names no key.
		cfg.Clear = true
	case err != nil:
		return nil, err
	}
	cps, err := checkpoint.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	if key != nil {
		if _, err := cps.SealClear(ctx); err != nil {
			fmt.Fprintf(c.stderr, "moteur: warning: %v\n", err)
		}
	}
	return cps, nil
}

// baseDeps are the engine's dependencies that every engine of the command
// line gets, whether it runs turns or rewinds: the project, the rules of
// the configuration and the checkpoints.
func baseDeps(st *settings, root string, cps *checkpoint.Store) engine.Deps {
	cfg := st.cfg
	return engine.Deps{
		ProjectRoot: root,
		Lang:        st.lang,
		Permissions: st.perms,
		Classify:    cfg.ClassifyRules(),
		Profile:     cfg.Profile.Name,
		Mode:        st.perms.Mode(),
		Policy:      cfg.Policy,
		Allowlists:  cfg.Allowlists,
		Checkpoints: cps,
	}
}

// openAgent prepares the turns of the session f names (a new one when
// none): the project, its configuration, the models, the tools, then the
// session, continued from the store when it exists there. Nothing is
// created before the configuration has been read and accepted.
func (c *cli) openAgent(ctx context.Context, g *globalFlags, f *agentFlags) (_ *agent, err error) {
	root, err := c.projectRoot()
	if err != nil {
		return nil, err
	}
	st, err := c.loadSettings(root, g, f, true)
	if err != nil {
		return nil, err
	}
	cfg, lang := st.cfg, st.lang
	sandbox, err := sandboxMode(f.sandbox, cfg)
	if err != nil {
		return nil, err
	}
	prov, router, err := providers(cfg)
	if err != nil {
		return nil, failure(err)
	}
	sysPrompt, instructions, err := systemPrompt(root, lang)
	if err != nil {
		return nil, err
	}
	sessionID := f.session
	if sessionID == "" {
		if sessionID, err = c.newSessionID(); err != nil {
			return nil, err
		}
	}
	home, err := dataDir(c.env)
	if err != nil {
		return nil, err
	}
	cps, err := c.openCheckpoints(ctx, home, cfg.Policy, true)
	if err != nil {
		return nil, err
	}
	cl, err := classifierOf(cfg)
	if err != nil {
		return nil, failure(err)
	}
	tl, err := newSessionTools(root, cps, sandbox, cl, c.tools)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = tl.close()
		}
	}()
	store, err := c.knowledgeTools(ctx, st, f.kb, tl.reg)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && store != nil {
			_ = store.Close()
		}
	}()
	if store != nil {
		sysPrompt += "\n\n" + i18n.KnowledgePrompt(lang, strings.Join(f.kb, ", "))
	}
	// The session comes last among the preparations, so that a failed
	// preparation leaves nothing behind, and before the engine, which must
	// never run without its audit log.
	ls, err := c.openLiveSession(ctx, home, sessionID)
	if err != nil {
		return nil, err
	}

	deps := baseDeps(st, root, cps)
	deps.Provider, deps.Router = prov, router
	deps.Tools = tl.reg
	deps.Sinks = ls.sinks()
	deps.MaxIterations = f.maxIterations
	deps.SystemPrompt, deps.Instructions = sysPrompt, instructions
	deps.ContextWindow = cfg.Providers[0].ContextWindow
	deps.ShellSandboxed = tl.shell.Sandboxed()
	deps.Sandbox = tl.sandbox()
	eng, err := engine.New(deps)
	if err == nil && len(ls.past) > 0 {
		// Restore only reads the events: a log it refuses gets nothing
		// appended.
		if err = eng.Restore(sessionID, ls.past); err != nil {
			err = fmt.Errorf("cannot continue: %w", err)
		}
	}
	if err != nil {
		return nil, errors.Join(err, ls.abandon())
	}
	if ls.warning != "" {
		fmt.Fprintf(c.stderr, "moteur: warning: %s\n", ls.warning)
	}
	c.sandboxNote(f.sandbox, deps.Sandbox)
	stderr := &lockedWriter{w: c.stderr}
	policyPath := ""
	if cfg.Policy != nil {
		policyPath = cfg.Policy.Path
	}
	return &agent{
		eng: eng, events: eng.Subscribe(), ls: ls, tools: tl, id: sessionID, kb: store, model: cfg.Providers[0], resumed: len(ls.past) > 0,
		stderr:    stderr,
		approvals: &approvals{eng: eng, w: stderr, refusal: noTerminalRefusal(st.perms.Mode(), st.floor, policyPath)},
	}, nil
}

// sandboxNote tells the user, in one line on standard error, that shell
// commands run unsandboxed: always when --sandbox none asked for it, and
// on a terminal when auto found no usable bubblewrap (the reason, recorded
// in SessionStarted, says how to install it). The stricter profiles never
// run unsandboxed: they refuse the commands instead.
func (c *cli) sandboxNote(flag string, sb *effect.Sandbox) {
	if sb.Kind != "none" { // as shell.Exec.Describe reports no sandbox
		return
	}
	switch {
	case flag == shell.SandboxNone:
		fmt.Fprintln(c.stderr, "moteur: note: shell commands run unsandboxed (--sandbox none), with your full rights")
	case isTerminal(c.stderr):
		fmt.Fprintf(c.stderr, "moteur: note: shell commands run unsandboxed: %s\n", oneLine(sb.Detail, 300))
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

// close ends the session's use by this process.
func (a *agent) close() error {
	err := errors.Join(a.ls.close(), a.tools.close())
	if a.kb != nil {
		err = errors.Join(err, a.kb.Close())
	}
	return err
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
				return "", failure(fmt.Errorf("read prompt from standard input: %w", err))
			}
			if len(b) > maxStdinPrompt {
				return "", usageErrorf("prompt on standard input is larger than %d MiB", maxStdinPrompt>>20)
			}
			p = string(b)
		}
	}
	if strings.TrimSpace(p) == "" {
		return "", usageErrorf("no prompt: give it as arguments or on standard input")
	}
	return p, nil
}

// runTurn submits prompt and renders the turn's events, read from events
// (the engine's one subscription: a channel nobody reads would block the
// engine once full), while it runs. The engine's delivery blocks on a full
// channel, so the view reads in its own goroutine for the whole turn.
func runTurn(ctx context.Context, eng *engine.Engine, events <-chan event.Event, sessionID, prompt string, v view) (turnErr, viewErr error) {
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- pump(events, stop, v) }()
	turnErr = eng.SubmitInput(ctx, sessionID, engine.Input{Text: prompt})
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
