package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"strings"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

var (
	// ErrTurnInProgress: a turn holds the session; a rewind does not wait.
	ErrTurnInProgress = errors.New("a turn is in progress")
	// ErrConversationUnavailable: the conversation cannot be rewound past a
	// compaction.
	ErrConversationUnavailable = errors.New("conversation cannot be rewound past a compaction")
	// ErrUnknownSession: no session of that id has state in this Engine.
	ErrUnknownSession = errors.New("unknown session")
)

// RewindMode says what a rewind puts back.
type RewindMode string

// Rewind modes.
const (
	RewindCode         RewindMode = "code"
	RewindConversation RewindMode = "conversation"
	RewindBoth         RewindMode = "both"
)

// RewindResult is the outcome of a rewind.
type RewindResult struct {
	Files []event.RewoundFile
	// Prompt is the full text of the chosen point's prompt (modes
	// conversation and both).
	Prompt string
	// Note is joined to the next message (mode code alone).
	Note string
}

// RewindPoints returns the session's points, most recent first (nil for an
// unknown session). It does not wait for a turn to end. A session this
// Engine has no state of is read back from Deps.Store.
func (e *Engine) RewindPoints(sessionID string) []checkpoint.Point {
	if s := e.existing(sessionID); s != nil {
		if points, ok := s.points(); ok {
			return points
		}
	}
	s, release, err := e.hold(context.Background(), sessionID, false)
	if err != nil {
		return nil
	}
	defer release()
	points, _ := s.points()
	return points
}

// points are the session's rewind points; ok is false while the Engine
// knows none of its events.
func (s *session) points() ([]checkpoint.Point, bool) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	return s.st.rewind.Points(), s.st.seq > 0
}

// RewindPlan computes, changing nothing, the plan of a rewind to the point
// toSeq. ErrTurnInProgress when a turn holds the session.
func (e *Engine) RewindPlan(sessionID string, toSeq uint64) (checkpoint.Plan, error) {
	s, release, err := e.hold(context.Background(), sessionID, false)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	defer release()
	return e.plan(s, toSeq)
}

func (e *Engine) plan(s *session, toSeq uint64) (checkpoint.Plan, error) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	return s.st.rewind.Plan(e.deps.ProjectRoot, toSeq)
}

// Rewind puts the session back to the point toSeq as mode says. Only the
// files of the plan are touched: the ok ones, and the conflicts whose path
// is in overwrite; a file whose state differs from preview (the plan shown
// to the user) is left alone and reported failed. A failure on one file does
// not stop the others. The Rewound event is emitted last.
func (e *Engine) Rewind(ctx context.Context, sessionID string, toSeq uint64, mode RewindMode, preview checkpoint.Plan, overwrite []string) (RewindResult, error) {
	if mode != RewindCode && mode != RewindConversation && mode != RewindBoth {
		return RewindResult{}, fmt.Errorf("rewind: unknown mode %q (want code, conversation or both)", mode)
	}
	s, release, err := e.hold(ctx, sessionID, true)
	if err != nil {
		return RewindResult{}, err
	}
	defer release()
	if e.failed.Load() {
		return RewindResult{}, ErrAuditFailure
	}
	if !isPoint(s.st.rewind.Points(), toSeq) {
		return RewindResult{}, fmt.Errorf("rewind: %w", errNotAPoint(sessionID, toSeq))
	}
	at, ok := s.st.pointLen[toSeq]
	if mode != RewindCode && (!ok || toSeq < s.st.compactedAt) {
		return RewindResult{}, fmt.Errorf("rewind to %d: %w", toSeq, ErrConversationUnavailable)
	}
	var res RewindResult
	var plan checkpoint.Plan
	if mode != RewindConversation {
		plan, err = e.plan(s, toSeq)
		if err != nil {
			return RewindResult{}, fmt.Errorf("rewind: %w", err)
		}
		res.Files = checkpoint.Apply(ctx, e.deps.ProjectRoot, e.blobs(), plan, preview, overwrite)
	}
	if mode == RewindCode {
		res.Note = fmt.Sprintf(i18n.T(e.deps.Lang, i18n.RewindNote), toSeq)
		if calls := notUndone(plan.NotUndoable); calls != "" {
			// The model must not believe a deleted file came back.
			res.Note += fmt.Sprintf(i18n.T(e.deps.Lang, i18n.RewindNotUndone), calls)
		}
	} else {
		res.Prompt = s.st.prompts[toSeq]
	}
	_, err = e.emit(s, event.Rewound, event.RewoundPayload{
		ToSeq: toSeq, Mode: string(mode), Length: at, Files: res.Files, Prompt: res.Prompt, Note: res.Note,
	})
	return res, err
}

// notUndone lists the calls a rewind left as they were, a destructive one
// said so: "shell_exec at seq 12 (destructive), shell_exec at seq 15".
func notUndone(calls []checkpoint.Call) string {
	parts := make([]string, 0, len(calls))
	for _, c := range calls {
		p := fmt.Sprintf("%s at seq %d", c.Tool, c.Seq)
		if c.Risk == string(effect.RiskDestructive) {
			p += " (destructive)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// blobs is the checkpoint store as the rewind needs it (nil: content
// cannot come back, deletions still can).
func (e *Engine) blobs() effect.Blobs {
	if e.deps.Checkpoints == nil {
		return nil
	}
	return e.deps.Checkpoints
}

// hold takes the session's turn token without waiting (a rewind never
// runs beside a turn), and its lease when it is to write, and brings its
// state up to date from Deps.Store, which gives the sessions this Engine
// has no state of.
func (e *Engine) hold(ctx context.Context, sessionID string, write bool) (*session, func(), error) {
	s := e.existing(sessionID)
	if s == nil && e.deps.Store == nil {
		return nil, nil, fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
	}
	if s == nil {
		s = e.session(sessionID)
	}
	select {
	case s.turn <- struct{}{}:
	default:
		return nil, nil, fmt.Errorf("session %s: %w", sessionID, ErrTurnInProgress)
	}
	unlease := func() {}
	if write {
		var err error
		if unlease, err = e.lease(ctx, sessionID); err != nil {
			<-s.turn
			return nil, nil, err
		}
	}
	release := func() { unlease(); <-s.turn }
	if err := e.catchUp(ctx, s); err != nil {
		release()
		return nil, nil, err
	}
	if s.st.seq == 0 {
		release()
		e.forgetEmpty(s)
		return nil, nil, fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
	}
	return s, release, nil
}

// existing returns the session's state, nil when it has none.
func (e *Engine) existing(id string) *session {
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	return e.sessions[id]
}

func errNotAPoint(sessionID string, seq uint64) error {
	return fmt.Errorf("%w: seq %d of session %s is not a rewind point (a user message)", checkpoint.ErrNotAPoint, seq, sessionID)
}

// isPoint reports whether seq is one of the points.
func isPoint(points []checkpoint.Point, seq uint64) bool {
	for _, p := range points {
		if p.Seq == seq {
			return true
		}
	}
	return false
}

// forgetEmpty drops a session that a lookup made and no event fills, so
// that asking after unknown sessions keeps nothing in memory.
func (e *Engine) forgetEmpty(s *session) {
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	s.emitMu.Lock()
	empty := s.st.seq == 0
	s.emitMu.Unlock()
	if empty && e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
}
