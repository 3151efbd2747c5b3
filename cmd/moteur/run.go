package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/plan"
)

// maxStdinPrompt bounds a prompt read from standard input: far above any
// context window, it only stops an endless pipe from eating memory.
const maxStdinPrompt = 16 << 20

type runFlags struct {
	json          bool
	session       string
	maxIterations int
}

func (c *cli) runCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "Run one agent turn non-interactively",
		Long: "Run one agent turn on PROMPT (its words joined with spaces) and print the answer.\n" +
			"With PROMPT \"-\", or none and standard input not a terminal, the prompt is read from standard input.\n\n" +
			"Exit status: 0 when the turn completed, 1 on an error, 2 on bad usage.",
		Example: "  moteur run \"what does this project do?\"\n" +
			"  git diff | moteur run --json -",
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.run(cmd.Context(), g, f, args))
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "print every event as one JSON object per line, and nothing else, on stdout")
	fl.StringVar(&f.session, "session", "", "session id (default: a new one)")
	fl.IntVar(&f.maxIterations, "max-iterations", engine.DefaultMaxIterations, "most model rounds in the turn")
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
	lang, err := resolveLang(g.lang, c.env)
	if err != nil {
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
	prompt, err := c.prompt(args)
	if err != nil {
		return err
	}

	model, err := modelFromEnv(c.env)
	if errors.Is(err, errNoModel) {
		return configError(errors.New(i18n.T(lang, i18n.NoModelConfigured)))
	}
	if err != nil {
		return configError(err)
	}
	prov, err := openai.New(openai.Config{
		Name: model.providerName(), BaseURL: model.BaseURL, APIKey: model.APIKey, Model: model.Model,
	})
	if err != nil {
		return configError(fmt.Errorf("model configuration: %w", err))
	}

	root, err := c.workDir()
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return fmt.Errorf("project root: %w", err)
	}
	sysPrompt, instructions, err := systemPrompt(root, lang)
	if err != nil {
		return err
	}
	reg := tools.NewRegistry(tools.Config{})
	if err := plan.Register(reg); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}

	sessionID := f.session
	if sessionID == "" {
		if sessionID, err = c.newSessionID(); err != nil {
			return err
		}
	}
	home, err := dataDir(c.env)
	if err != nil {
		return err
	}
	// The audit log comes last among the preparations, so that a failed
	// preparation leaves no empty log behind, and before the engine, which
	// must never run without one.
	logPath := sessionLogPath(home, sessionID)
	sink, err := createSessionLog(logPath)
	if err != nil {
		return err
	}
	eng, err := engine.New(engine.Deps{
		Provider:      prov,
		Tools:         reg,
		Sinks:         []event.Sink{sink},
		MaxIterations: f.maxIterations,
		SystemPrompt:  sysPrompt,
		ProjectRoot:   root,
		Instructions:  instructions,
		Lang:          lang,
		ContextWindow: model.ContextWindow,
	})
	if err != nil {
		_ = sink.Close()
		_ = os.Remove(logPath)
		return err
	}

	var v view = newRenderer(c.stdout, c.stderr, isTerminal(c.stdout))
	if f.json {
		v = newJSONView(c.stdout)
	}
	turnErr, viewErr := runTurn(ctx, eng, sessionID, prompt, v)
	closeErr := sink.Close()
	switch {
	case turnErr != nil && ctx.Err() != nil && errors.Is(turnErr, ctx.Err()):
		return fmt.Errorf("interrupted: %w", turnErr)
	case turnErr != nil:
		return turnErr
	case closeErr != nil:
		return fmt.Errorf("close session log: %w", closeErr)
	case viewErr != nil:
		return fmt.Errorf("write output: %w", viewErr)
	}
	return nil
}

// prompt is the words of args joined with spaces, or standard input when
// args is "-", or empty while standard input is not a terminal.
func (c *cli) prompt(args []string) (string, error) {
	p := strings.Join(args, " ")
	dash := len(args) == 1 && args[0] == "-"
	if dash || len(args) == 0 && c.stdin != nil && !isTerminal(c.stdin) {
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

// runTurn submits prompt and renders the turn's events while it runs. The
// engine's delivery blocks on a full channel, so the view reads in its own
// goroutine for the whole turn.
func runTurn(ctx context.Context, eng *engine.Engine, sessionID, prompt string, v view) (turnErr, viewErr error) {
	events := eng.Subscribe()
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
