package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/engine"
)

func (c *cli) chatCmd(g *globalFlags) *cobra.Command {
	f := &agentFlags{}
	var plain bool
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: c.tr("Talk with an agent, turn after turn"),
		Long: c.tr("Talk with an agent in the terminal. On a terminal this is a full-screen interface: the answer\n"+
			"streams and shows as Markdown, each tool call is a live line, a permission request opens a dialog\n"+
			"with the command or the diff of the write (y yes, n no with a reason, a always, w with the network).\n"+
			"Enter sends, Alt-Enter or Ctrl-J starts a new line, Up/Down walk the history (kept per project),\n"+
			"PgUp/PgDn scroll. Ctrl-C cancels the turn at once, twice within 2 s quits; at the prompt it clears\n"+
			"the line, and on an empty line it quits (Ctrl-D too). /help lists the commands.\n\n"+
			"With --plain, or standard input not a terminal, prompts are read line by line: end a line with \\\n"+
			"to continue the prompt on the next one; Ctrl-C during a turn stops that turn only; Ctrl-C at the\n"+
			"prompt, Ctrl-D, /exit or /quit ends the chat. Off a terminal the first turn that fails ends the\n"+
			"chat with exit status 1.\n\n"+
			"With --session ID the chat continues that stored session, with -c the project's latest one\n"+
			"(see moteur run --help).\n\n") +
			c.agentHelp(),
		Example: "  moteur chat\n" +
			"  moteur chat --mode confirm\n" +
			"  moteur chat --session s-20260101T120000-0123456789abcdef",
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.chat(cmd.Context(), g, f, plain))
		},
	}
	cmd.Flags().BoolVar(&plain, "plain", false, c.tr("on a terminal too, read prompts line by line instead of the full-screen interface"))
	c.addAgentFlags(cmd, f)
	c.addSessionFlags(cmd, &f.session)
	return cmd
}

// Prompts of the chat, written to stderr when standard input is a terminal.
const (
	chatPrompt     = "› "
	chatContinued  = "… "
	chatLineEscape = `\`
)

// chatCommands lists the chat's commands, for /help and a mistyped one.
func (c *cli) chatCommands() string {
	return c.tr("/exit or /quit ends the chat, /session prints the session id, /skills lists the skills, /NAME ARGS runs the skill NAME, /agents lists the sub-agents, /help prints this")
}

func (c *cli) chat(ctx context.Context, g *globalFlags, f *agentFlags, plain bool) (err error) {
	if err := c.checkAgentFlags(g, f); err != nil {
		return err
	}
	f.interactive = c.stdinTTY
	o, err := c.agentOptions(ctx, g, f)
	if err != nil {
		return err
	}
	if quickAgent(o.Agent) {
		return c.quickChat(ctx, o)
	}
	a, err := c.openAgent(ctx, o, f)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := errors.Join(a.end("prompt_input_exit"), a.Close()); cerr != nil && err == nil {
			err = fmt.Errorf(c.tr("session %s: %w"), a.ID, cerr)
		}
	}()
	if c.stdinTTY && isTerminal(c.stdout) && !plain {
		return c.chatTUI(ctx, a)
	}

	interactive := c.stdinTTY
	// The model a session starts with is the first provider's.
	header := c.trf("moteur chat · session %s · model %s", a.ID, a.Settings.Config.Providers[0].Model)
	if a.Resumed() {
		header += c.trf(" · continued (%d events)", a.LastSeq)
	}
	if interactive {
		header += c.tr(" · /exit to quit")
	}
	if _, err := fmt.Fprintln(c.stderr, header); err != nil {
		return err
	}

	lines := readLines(c.stdin)
	defer lines.stop()
	if interactive {
		// Approval questions read their answers from the same lines as
		// the prompts.
		a.useTerminal(func() *lineReader { return lines })
	}
	for {
		prompt, ok, err := c.readPrompt(ctx, lines, interactive)
		if err != nil || !ok {
			return err
		}
		switch strings.TrimSpace(prompt) {
		case "":
			continue
		case "/exit", "/quit":
			return nil
		case "/session":
			if _, err := fmt.Fprintln(c.stdout, a.ID); err != nil {
				return err
			}
			continue
		case "/help":
			if _, err := fmt.Fprintln(c.stderr, c.chatCommands()); err != nil {
				return err
			}
			continue
		case "/agents":
			if err := c.printAgents(a.Settings); err != nil {
				return err
			}
			continue
		case "/skills":
			if err := c.printSkills(a.Skills().List(), false); err != nil {
				return err
			}
			continue
		}
		if name, _, ok := skillCall(prompt); ok {
			if _, known := a.Skills().Lookup(name); !known {
				fmt.Fprintln(c.stderr, c.trf("moteur: unknown command or skill /%s (%s)", oneLine(name, 40), c.chatCommands()))
				continue
			}
		} else if cmd := strings.TrimSpace(prompt); strings.HasPrefix(cmd, "/") && !strings.ContainsAny(cmd, " \t\n") {
			fmt.Fprintln(c.stderr, c.trf("moteur: unknown command %s (%s)", oneLine(cmd, 40), c.chatCommands()))
			continue
		}
		if err := c.chatTurn(ctx, a, prompt); err != nil {
			// The audit log failed: the engine refuses every turn from
			// now on. A script's failed turn ends its chat.
			if errors.Is(err, engine.ErrAuditFailure) || !interactive || ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "moteur: %v\n", err)
		}
	}
}

// readPrompt reads the next prompt: a line, joined to the following ones
// while it ends with a backslash. ok is false when the chat ends: end of
// input, Ctrl-C at the prompt, or ctx done. Ctrl-C while a continued prompt
// is being typed drops that prompt instead.
func (c *cli) readPrompt(ctx context.Context, lines *lineReader, interactive bool) (prompt string, ok bool, err error) {
	intr, stopIntr := c.interrupts()
	defer stopIntr()
	var parts []string
	for {
		if interactive {
			p := chatPrompt
			if len(parts) > 0 {
				p = chatContinued
			}
			if _, err := io.WriteString(c.stderr, p); err != nil {
				return "", false, err
			}
		}
		select {
		case line, open := <-lines.lines:
			if !open {
				if interactive {
					fmt.Fprintln(c.stderr)
				}
				if lines.err != nil {
					return "", false, fmt.Errorf(c.tr("read standard input: %w"), lines.err)
				}
				// End of input: a prompt still being continued is sent.
				return strings.Join(parts, "\n"), len(parts) > 0, nil
			}
			if rest, cont := strings.CutSuffix(line, chatLineEscape); cont {
				parts = append(parts, rest)
				continue
			}
			return strings.Join(append(parts, line), "\n"), true, nil
		case <-intr:
			fmt.Fprintln(c.stderr)
			if len(parts) == 0 {
				return "", false, nil
			}
			parts = nil
		case <-ctx.Done():
			return "", false, nil
		}
	}
}

// chatTurn runs one turn of the chat. Ctrl-C during the turn cancels it:
// the engine closes it (no further model request, TurnCompleted cancelled in the log) and the
// chat goes on; a second Ctrl-C while it closes kills the process, as in
// moteur run. An interrupted turn is not an error.
func (c *cli) chatTurn(ctx context.Context, a *agent, prompt string) error {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr, stopIntr := c.interrupts()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		defer stopIntr()
		select {
		case <-intr:
			cancel()
		case <-tctx.Done():
		}
	}()
	v := a.view(c.newRenderer(c.stdout, a.stderr, isTerminal(c.stdout), isTerminal(c.stderr)), false)
	in := engine.Input{Text: prompt}
	if name, args, ok := skillCall(prompt); ok {
		var err error
		if in, err = skillInput(a.Session, name, args); err != nil {
			cancel()
			<-watched
			_, werr := fmt.Fprintf(c.stderr, "moteur: /%s: %v\n", name, err)
			return werr
		}
	}
	turnErr, viewErr := runTurn(tctx, a.Engine, a.events, a.ID, in, v)
	cancel()
	<-watched
	switch {
	case turnErr != nil && ctx.Err() != nil:
		return fmt.Errorf(c.tr("interrupted: %w"), turnErr)
	case turnErr != nil && tctx.Err() != nil && errors.Is(turnErr, tctx.Err()):
		_, err := fmt.Fprintln(c.stderr, c.tr("moteur: turn interrupted"))
		return err
	case turnErr != nil:
		return c.turnError(turnErr)
	case viewErr != nil:
		return fmt.Errorf(c.tr("write output: %w"), viewErr)
	}
	return nil
}

// lineReader reads standard input line by line in its own goroutine, so that
// the chat can wait for a line and for Ctrl-C at once.
type lineReader struct {
	lines chan string
	// err is the read error, if any, once lines is closed.
	err  error
	done chan struct{}
}

func readLines(r io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan string), done: make(chan struct{})}
	go func() {
		defer close(lr.lines)
		if r == nil {
			return
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), maxStdinPrompt)
		for sc.Scan() {
			select {
			case lr.lines <- strings.TrimSuffix(sc.Text(), "\r"):
			case <-lr.done:
				return
			}
		}
		lr.err = sc.Err()
	}()
	return lr
}

// stop lets the reading goroutine end (a read already blocked on a terminal
// ends with the process).
func (lr *lineReader) stop() { close(lr.done) }
