package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/routing"
)

type askFlags struct {
	bases   []string
	mode    string
	session string
	json    bool
}

func (c *cli) askCmd(g *globalFlags) *cobra.Command {
	f := &askFlags{}
	cmd := &cobra.Command{
		Use:   "ask [flags] QUESTION...",
		Short: "Answer a question from the knowledge bases (quick answer)",
		Long: "Answer a question from the knowledge bases in one retrieval and one generation, citing the passages\n" +
			"used as [c1], [c2]… and listing them under the answer. With no model configured, the answer quotes\n" +
			"the most relevant passages instead (nothing leaves the machine). The exchange is stored as a session\n" +
			"with its audit log; --session ID continues it, the question then read in the light of the previous ones.\n\n" +
			"For questions that need several searches, reading documents or other tools, use moteur run --kb NAME.",
		Example: "  moteur ask \"combien de jours de congé après un an ?\"\n" +
			"  moteur ask --kb docs --json \"what does ERR_4012 mean?\"",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.ask(cmd.Context(), g, f, strings.Join(args, " "))
		},
	}
	cmd.Flags().StringSliceVar(&f.bases, "kb", nil, "knowledge bases to search (repeat or separate with commas; default all)")
	cmd.Flags().StringVar(&f.mode, "mode", "hybrid", "search mode: hybrid, semantic or keyword")
	cmd.Flags().StringVar(&f.session, "session", "", "continue this session (its previous questions give context)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print every event as one JSON object per line, and nothing else, on stdout")
	return cmd
}

func (c *cli) ask(ctx context.Context, g *globalFlags, f *askFlags, question string) error {
	mode, err := kb.ParseMode(f.mode)
	if err != nil {
		return usageErrorf("--mode: %v", err)
	}
	if f.session != "" {
		if err := checkSessionID(f.session); err != nil {
			return err
		}
	}
	st, err := c.modelessSettings(g)
	if err != nil {
		return err
	}
	store, err := c.openKB(ctx, st)
	if err != nil {
		return err
	}
	defer store.Close()
	// The bases first: a misspelt name is a usage error, and no session is
	// stored for it.
	for _, b := range f.bases {
		if _, err := store.Base(ctx, b); err != nil {
			return kbError(err)
		}
	}
	cfg := rag.Config{Store: store, Bases: f.bases, Mode: mode, Lang: st.lang}
	// The outbound check classifies the passages even without a model: a
	// session that quoted classified content must stay sensitive.
	if cfg.Outbound, err = outboundFor(st); err != nil {
		return failure(err)
	}
	if len(st.cfg.Providers) > 0 {
		first, router, err := providers(st.cfg)
		if err != nil {
			return failure(err)
		}
		if router == nil { // one remote provider: a router of one
			one := routing.Candidate{Provider: first, Endpoint: first.Endpoint()}
			if router, err = routing.New(routing.Config{Candidates: []routing.Candidate{one}}); err != nil {
				return failure(err)
			}
		}
		cfg.Router = router
	}
	p, err := rag.New(cfg)
	if err != nil {
		return failure(err)
	}
	root, err := c.projectRoot()
	if err != nil {
		return err
	}
	return c.askSession(ctx, f, st.lang, root, p, question)
}

// askSession records the question and its answer as a session, then
// renders the events.
func (c *cli) askSession(ctx context.Context, f *askFlags, lang i18n.Lang, root string, p *rag.Pipeline, question string) error {
	id := f.session
	if id == "" {
		var err error
		if id, err = c.newSessionID(); err != nil {
			return err
		}
	}
	home, err := dataDir(c.env)
	if err != nil {
		return err
	}
	ls, err := c.openLiveSession(ctx, home, id)
	if err != nil {
		return failure(err)
	}
	if ls.warning != "" {
		fmt.Fprintf(c.stderr, "moteur: warning: %s\n", ls.warning)
	}
	rec := &recorder{ctx: ctx, id: id, seq: lastSeq(ls.past), sinks: ls.sinks(), now: c.now}
	var v view = newJSONView(c.stdout)
	if !f.json {
		v = newRenderer(c.stdout, c.stderr, isTerminal(c.stdout), isTerminal(c.stderr))
	}
	rec.view = v
	if len(ls.past) == 0 {
		// Local: the answers of a quick answer quote the documents (the
		// extractive ones always do). Recorded as local, they stay subject
		// to the marking check if the session is continued by an agent
		// (moteur run --session) and sent to a remote model.
		if err := rec.emit(event.SessionStarted, event.SessionStartedPayload{Provider: "quick-answer", Model: "rag",
			ProjectRoot: root, Tools: []string{}, Lang: string(lang.Normalize()), Local: true}, false); err != nil {
			return failure(errors.Join(err, ls.close()))
		}
	}
	_, askErr := p.Ask(ctx, question, historyOf(ls.past), rec.emit,
		rag.WithAliases(aliasesOf(ls.past)), rag.WithSensitive(sensitiveIn(ls.past)))
	err = errors.Join(rec.err, v.finish(), ls.close())
	if askErr != nil {
		return failure(askErr)
	}
	if err != nil {
		return failure(err)
	}
	if !f.json {
		fmt.Fprintf(c.stderr, "moteur: session %s (continue with: moteur ask --session %s QUESTION)\n", id, id)
	}
	return nil
}

// sensitiveIn reports that classified content entered a stored session.
func sensitiveIn(past []event.Event) bool {
	for _, ev := range past {
		if ev.Type == event.SessionClassified {
			return true
		}
	}
	return false
}

// aliasesOf rebuilds a stored session's citation aliases from the
// references its events carry, as Engine.Restore does.
func aliasesOf(past []event.Event) *cite.Table {
	t := cite.NewTable()
	for _, ev := range past {
		if ev.ParentCallID == "" {
			t.Add(event.References(ev)...)
		}
	}
	return t
}

// recorder numbers the pipeline's events, masks and records the persisted
// ones (audit log first), and shows them all.
type recorder struct {
	ctx   context.Context
	id    string
	seq   uint64
	sinks []event.Sink
	view  view
	now   func() time.Time
	err   error
}

func (r *recorder) emit(t event.Type, payload any, ephemeral bool) error {
	ev := event.Event{Type: t, SessionID: r.id, Time: r.now().UTC(), Payload: payload, Ephemeral: ephemeral}
	if !ephemeral {
		r.seq++
		ev.Seq = r.seq
	}
	ev = event.MaskEvent(ev)
	if !ephemeral {
		for _, s := range r.sinks {
			if err := s.Write(r.ctx, ev); err != nil {
				return fmt.Errorf("record event %d: %w", ev.Seq, err)
			}
		}
	}
	// A view that cannot write (a closed pipe) does not stop the record.
	if err := r.view.event(ev); err != nil && r.err == nil {
		r.err = err
	}
	return nil
}

func lastSeq(past []event.Event) uint64 {
	if len(past) == 0 {
		return 0
	}
	return past[len(past)-1].Seq
}

// historyOf is the conversation a stored session holds: its questions and
// answers.
func historyOf(past []event.Event) []llm.Message {
	var out []llm.Message
	for _, ev := range past {
		if ev.ParentCallID != "" {
			continue
		}
		switch p := ev.Payload.(type) {
		case event.UserMessagePayload:
			if !p.Blocked {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: p.Text})
			}
		case event.AssistantMessagePayload:
			if len(p.ToolCalls) == 0 && p.Text != "" {
				out = append(out, llm.Message{Role: llm.RoleAssistant, Content: p.Text})
			}
		}
	}
	return out
}
