package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
)

type askFlags struct {
	bases   []string
	mode    string
	session string
	json    bool
	// agent is --agent: its model, temperature, max tokens, bases and
	// prompt answer.
	agent string
	// effort is --effort: the reasoning effort over the agent's.
	effort string
	// web is --web and --no-web: web results beside the passages.
	web webFlags
}

func (c *cli) askCmd(g *globalFlags) *cobra.Command {
	f := &askFlags{}
	cmd := &cobra.Command{
		Use:   "ask [flags] QUESTION...",
		Short: c.tr("Answer a question from the knowledge bases (quick answer)"),
		Long: c.tr("Answer a question from the knowledge bases in one retrieval and one generation, citing the passages\n" +
			"used as [c1], [c2]… and listing them under the answer. With no model configured, the answer quotes\n" +
			"the most relevant passages instead (nothing leaves the machine). The exchange is stored as a session\n" +
			"with its audit log; --session ID continues it, the question then read in the light of the previous ones.\n\n" +
			"For questions that need several searches, reading documents or other tools, use moteur run --kb NAME."),
		Example: "  moteur ask \"combien de jours de congé après un an ?\"\n" +
			"  moteur ask --kb docs --json \"what does ERR_4012 mean?\"\n" +
			"  moteur ask --agent builtin-quick-answer \"quelle est la politique de télétravail ?\"",
		Args: c.minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.ask(cmd.Context(), g, f, strings.Join(args, " "))
		},
	}
	cmd.Flags().StringSliceVar(&f.bases, "kb", nil, c.tr("knowledge bases to search (repeat or separate with commas; default all)"))
	cmd.Flags().StringVar(&f.mode, "mode", "hybrid", c.tr("search mode: hybrid, semantic or keyword"))
	cmd.Flags().StringVar(&f.session, "session", "", c.tr("continue this session (its previous questions give context)"))
	cmd.Flags().BoolVar(&f.json, "json", false, c.tr("print every event as one JSON object per line, and nothing else, on stdout"))
	cmd.Flags().StringVar(&f.agent, "agent", "", c.tr("answer as the agent `NAME` (by id or name): its model, temperature, max tokens,\n"+
		"knowledge bases (--kb narrows within them) and prompt"))
	c.addEffortFlag(cmd, &f.effort)
	c.addWebFlags(cmd, &f.web)
	c.addSessionFlags(cmd, &f.session)
	return cmd
}

func (c *cli) ask(ctx context.Context, g *globalFlags, f *askFlags, question string) error {
	mode, err := kb.ParseMode(f.mode)
	if err != nil {
		return usageErrorf("--mode: %v", err)
	}
	if f.session != "" {
		if err := c.checkSessionID(f.session); err != nil {
			return err
		}
	}
	if err := c.checkWebFlags(f.web); err != nil {
		return err
	}
	o, err := c.options(g)
	if err != nil {
		return err
	}
	o.SessionID, o.KnowledgeBases, o.SearchMode, o.NoModel = f.session, f.bases, mode, true
	o.ReasoningEffort = f.effort
	f.web.apply(&o)
	if err := c.withAgent(ctx, &o, f.agent); err != nil {
		return err
	}
	q, err := c.openQuick(ctx, o)
	if err != nil {
		return err
	}
	q.RetryDelays = c.retryDelays
	err = c.answer(ctx, q, question, f.json)
	if err = errors.Join(err, q.Close()); err != nil {
		return failure(err)
	}
	if !f.json {
		fmt.Fprintf(c.stderr, "moteur: %s\n", i18n.AskSession(q.Settings.Lang, q.ID))
	}
	return nil
}

// openQuick opens the quick-answer session of o and prints its notes and
// warnings.
func (c *cli) openQuick(ctx context.Context, o app.Options) (*app.Quick, error) {
	o.NoModel = true
	st, err := c.settings(o)
	if err != nil {
		return nil, err
	}
	// A misspelt base is a usage error, and no session is stored for it.
	q, err := st.OpenQuick(ctx)
	if err != nil {
		return nil, appError(err)
	}
	c.warn(q.Warnings)
	return q, nil
}

// answer asks question in q and shows the events on standard output, as
// JSON lines or rendered.
func (c *cli) answer(ctx context.Context, q *app.Quick, question string, jsonOut bool) error {
	var v view = newJSONView(c.stdout)
	if !jsonOut {
		v = c.newRenderer(c.stdout, c.stderr, isTerminal(c.stdout), isTerminal(c.stderr))
	}
	// A view that cannot write (a closed pipe) does not stop the record.
	var viewErr error
	_, askErr := q.Ask(ctx, question, func(ev event.Event) {
		if err := v.event(ev); err != nil && viewErr == nil {
			viewErr = err
		}
	})
	if askErr != nil {
		return errors.Join(askErr, v.finish())
	}
	return errors.Join(viewErr, v.finish())
}
