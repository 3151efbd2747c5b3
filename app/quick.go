package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/session"
)

// Quick is a quick-answer session (moteur ask): each question gets one
// retrieval and one generation from the knowledge bases, recorded as a
// session with its audit log, like an agent's turn. Its Session has no
// Engine: the rag pipeline answers, not the loop.
type Quick struct {
	*Session
	// RetryDelays are the waits before each retry of a model that failed
	// transiently (nil: rag.DefaultRetryDelays, the engine's).
	RetryDelays []time.Duration
	pipeline    *rag.Pipeline
	// past are the session's persisted events, those stored before it was
	// opened and those its questions recorded since.
	past []event.Event
}

// OpenQuick opens a quick-answer session: LoadSettings (a quick answer
// never requires a model), then Settings.OpenQuick.
func OpenQuick(ctx context.Context, o Options) (*Quick, error) {
	o.NoModel = true
	s, err := LoadSettings(o)
	if err != nil {
		return nil, err
	}
	return s.OpenQuick(ctx)
}

// OpenQuick opens the knowledge bases the options name (all of them when
// none; a base that does not exist is an error wrapping kb.ErrNotFound,
// and no session is stored for it), the models of the configuration behind
// the outbound check (none: the extractive provider quotes the passages),
// then the session, continued when it is stored. When the session would
// offer the web tools and a search provider is configured, the web is
// searched beside the bases (quickWeb).
func (s *Settings) OpenQuick(ctx context.Context) (_ *Quick, err error) {
	o := s.opts
	bases, err := s.quickBases()
	if err != nil {
		return nil, err
	}
	q := &Quick{Session: &Session{Settings: s}}
	defer func() {
		if err != nil {
			err = errors.Join(err, q.Close())
		}
	}()
	if q.kb, err = s.openBases(ctx, bases); err != nil {
		return nil, err
	}
	cfg := rag.Config{Store: q.kb, Bases: bases, Mode: o.SearchMode, Lang: s.Lang}
	// A custom agent's request options and prompt go to the generation,
	// and the session's reasoning effort (Options', else the agent's).
	cfg.Temperature, cfg.MaxTokens, cfg.NoThinking = requestOptions(s.agent)
	effort := s.reasoningEffort()
	var level string
	if effort != "" {
		cfg.NoThinking, level = agentconfig.RequestEffort(effort)
	}
	cfg.Instructions = agentPrompt(s.Lang, s.agent)
	cfg.NoCitations = !s.citations()
	// The outbound check classifies the passages even without a model: a
	// session that quoted classified content must stay sensitive.
	if cfg.Outbound, err = s.outbound(); err != nil {
		return nil, err
	}
	// The pipeline sends through a router, even to one remote provider.
	if _, cfg.Router, err = providersIn(s.Config, true, s.Lang); err != nil {
		return nil, err
	}
	if _, cfg.Router, err = s.withEffort(nil, cfg.Router, level); err != nil {
		return nil, err
	}
	q.Warnings = append(q.Warnings, keyWarnings(s.Config, s.Lang)...)
	var webNotes []string
	cfg.Web, webNotes = s.quickWeb(cfg.Outbound)
	q.Warnings = append(q.Warnings, webNotes...)
	if q.pipeline, err = rag.New(cfg); err != nil {
		return nil, err
	}
	if q.ID, err = o.sessionID(); err != nil {
		return nil, err
	}
	if err := q.openLive(ctx, o); err != nil {
		return nil, err
	}
	if q.past, err = q.Store.LoadFrom(ctx, q.ID, 0); err != nil && !errors.Is(err, session.ErrNotFound) {
		return nil, err
	}
	return q, nil
}

// quickBases are the bases a quick answer searches (none: all of them):
// Options.KnowledgeBases within the agent's. An agent that uses no base
// leaves a quick answer nothing to search: an *OptionError.
func (s *Settings) quickBases() ([]string, error) {
	sel, err := agentBases(s.opts.KnowledgeBases, s.agent, s.Lang)
	if err != nil {
		return nil, err
	}
	if !sel.all && len(sel.bases) == 0 && s.agent != nil {
		return nil, &OptionError{Option: "agent", Err: errors.New(i18n.Trf(s.Lang, "%s uses no knowledge base (kb_selection_mode none): a quick answer has nothing to search",
			agentName(s.agent)))}
	}
	return sel.bases, nil
}

// Ask answers question in the light of the session's previous ones,
// recording its events through the session's sinks, audit log first —
// for a new session, its SessionStarted before the first of them. show
// gets every event, persisted or ephemeral, once it is recorded. A new
// session whose question fails before anything is recorded (its search)
// records nothing: no session is stored.
func (q *Quick) Ask(ctx context.Context, question string, show func(event.Event)) (rag.Answer, error) {
	rec := &recorder{ctx: ctx, id: q.ID, seq: lastSeq(q.past), sinks: q.live.sinks(), now: q.Settings.opts.Now, show: show,
		stored: &q.past, noCitations: !q.Settings.citations()}
	if len(q.past) == 0 {
		// Local: the answers of a quick answer quote the documents (the
		// extractive ones always do). Recorded as local, they stay subject
		// to the marking check if the session is continued by an agent
		// (moteur run --session) and sent to a remote model.
		rec.start = &event.SessionStartedPayload{Provider: "quick-answer", Model: "rag",
			ProjectRoot: q.ProjectRoot(), Tools: []string{}, Lang: string(q.Settings.Lang.Normalize()), Local: true,
			Agent: q.Settings.agentID()}
	}
	history, aliases, sensitive := conversation(q.past)
	history = q.Settings.agentHistory(history)
	a, err := q.pipeline.Ask(ctx, question, history, rec.emit, rag.WithAliases(aliases), rag.WithSensitive(sensitive),
		rag.WithRetryDelays(q.RetryDelays))
	if rec.noCitations {
		a.Citations = nil
	}
	return a, err
}

// Close closes the session. A new session that recorded nothing (its
// question failed before anything was recorded) leaves no empty
// transcript, as it leaves no audit log: no session is stored. The
// transcript goes before the lease, so that no other process finds it.
func (q *Quick) Close() error {
	if q.live != nil && q.LastSeq == 0 && len(q.past) == 0 {
		path := TranscriptPath(q.Settings.opts.DataDir, q.ID)
		if st, err := os.Stat(path); err == nil && st.Size() == 0 {
			_ = os.Remove(path)
		}
	}
	return q.Session.Close()
}

// agentHistory is what a custom agent keeps of the conversation: nothing
// when multi_turn_enabled is off, else its last history_turns exchanges.
func (s *Settings) agentHistory(history []llm.Message) []llm.Message {
	if s.agent == nil {
		return history
	}
	if !s.agent.Config.MultiTurnEnabled {
		return nil
	}
	if n := 2 * s.agent.Config.HistoryTurns; n > 0 && len(history) > n {
		history = history[len(history)-n:]
	}
	return history
}

// recorder numbers the pipeline's events, masks and records the persisted
// ones (audit log first), and shows them all.
type recorder struct {
	ctx    context.Context
	id     string
	seq    uint64
	sinks  []event.Sink
	now    func() time.Time
	show   func(event.Event)
	stored *[]event.Event // the session's persisted events, appended to
	// start, for a new session, is its SessionStarted, recorded before
	// its first persisted event.
	start *event.SessionStartedPayload
	// noCitations: the agent's answers cite nothing (citation_enabled
	// false), so its AssistantMessage records no citation.
	noCitations bool
}

func (r *recorder) emit(t event.Type, payload any, ephemeral bool) error {
	if p, ok := payload.(event.AssistantMessagePayload); ok && r.noCitations {
		p.Citations = nil
		payload = p
	}
	if r.start != nil && !ephemeral {
		start := *r.start
		r.start = nil
		if err := r.emit(event.SessionStarted, start, false); err != nil {
			return err
		}
	}
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
		*r.stored = append(*r.stored, ev)
	}
	r.show(ev)
	return nil
}

func lastSeq(past []event.Event) uint64 {
	if len(past) == 0 {
		return 0
	}
	return past[len(past)-1].Seq
}

// conversation is what a quick answer needs of a stored session: its
// questions and answers, the citation aliases the references of its events
// give (as Engine.Restore rebuilds them), and whether classified content
// entered it.
func conversation(past []event.Event) (history []llm.Message, aliases *cite.Table, sensitive bool) {
	aliases = cite.NewTable()
	for _, ev := range past {
		if ev.Type == event.SessionClassified {
			sensitive = true
		}
		if ev.ParentCallID != "" {
			continue
		}
		aliases.Add(event.References(ev)...)
		switch p := ev.Payload.(type) {
		case event.UserMessagePayload:
			if !p.Blocked {
				history = append(history, llm.Message{Role: llm.RoleUser, Content: p.Text})
			}
		case event.AssistantMessagePayload:
			if len(p.ToolCalls) == 0 && p.Text != "" {
				history = append(history, llm.Message{Role: llm.RoleAssistant, Content: p.Text})
			}
		}
	}
	return history, aliases, sensitive
}
