package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/app"
)

// --agent on run, chat and ask: the session runs as a custom agent
// (app.Options.Agent). A quick-answer agent is downgraded to the quick
// answer on run and chat, as seed 000 does on its agent route.

// agentOptions are the options of run and chat: the flags, then --agent
// resolved (an unknown agent is a usage error listing the agents).
func (c *cli) agentOptions(ctx context.Context, g *globalFlags, f *agentFlags) (app.Options, error) {
	o, err := c.options(g)
	if err != nil {
		return o, err
	}
	f.apply(&o)
	return o, c.withAgent(ctx, &o, f.agent)
}

// withAgent resolves ref into o.Agent ("" leaves it nil).
func (c *cli) withAgent(ctx context.Context, o *app.Options, ref string) error {
	if strings.TrimSpace(ref) == "" {
		return nil
	}
	a, err := app.ResolveAgent(ctx, *o, ref)
	if err != nil {
		return appError(err)
	}
	o.Agent = &a
	return nil
}

// quickAgent reports that a is a quick-answer agent (nil: no agent).
func quickAgent(a *agentconfig.Agent) bool {
	if a == nil {
		return false
	}
	cfg := a.Config.Clone()
	cfg.EnsureDefaults()
	return !cfg.IsAgentMode()
}

// quickNote says once, on standard error, that the agent answers with the
// quick answer.
func (c *cli) quickNote(a *agentconfig.Agent) {
	fmt.Fprintf(c.stderr, c.tr("moteur: note: %s is a quick-answer agent: it answers from the knowledge bases in one retrieval and one generation, as moteur ask does, not in the agent loop\n"),
		a.ID)
}

// quickRun answers prompt with the quick answer of o's agent (moteur run
// --agent with a quick-answer agent).
func (c *cli) quickRun(ctx context.Context, o app.Options, prompt string, jsonOut bool) error {
	c.quickNote(o.Agent)
	q, err := c.openQuick(ctx, o)
	if err != nil {
		return err
	}
	err = errors.Join(c.answer(ctx, q, prompt, jsonOut), q.Close())
	// As moteur run says it of every turn, whatever the outcome.
	fmt.Fprintf(c.stderr, "session: %s\n", q.ID)
	return err
}

// quickChat is a chat with a quick-answer agent: each prompt gets a quick
// answer in the same session, the previous ones giving context.
func (c *cli) quickChat(ctx context.Context, o app.Options) (err error) {
	c.quickNote(o.Agent)
	q, err := c.openQuick(ctx, o)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := q.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("session %s: %w", q.ID, cerr)
		}
	}()
	interactive := c.stdinTTY
	header := c.trf("moteur chat · session %s · agent %s (quick answer)", q.ID, o.Agent.ID)
	if q.Resumed() {
		header += c.trf(" · continued (%d events)", q.LastSeq)
	}
	if interactive {
		header += c.tr(" · /exit to quit")
	}
	if _, err := fmt.Fprintln(c.stderr, header); err != nil {
		return err
	}
	lines := readLines(c.stdin)
	defer lines.stop()
	for {
		prompt, ok, err := c.readPrompt(ctx, lines, interactive)
		if err != nil || !ok {
			return err
		}
		switch cmd := strings.TrimSpace(prompt); {
		case cmd == "":
			continue
		case cmd == "/exit" || cmd == "/quit":
			return nil
		case cmd == "/session":
			if _, err := fmt.Fprintln(c.stdout, q.ID); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(cmd, "/") && !strings.ContainsAny(cmd, " \t\n"):
			fmt.Fprint(c.stderr, c.tr("moteur: a quick-answer agent knows /exit, /quit and /session only\n"))
			continue
		}
		if err := c.answer(ctx, q, prompt, false); err != nil {
			if !interactive || ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "moteur: %v\n", err)
		}
	}
}
