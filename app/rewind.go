package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// Rewind is a stored session opened to be rewound (Engine.RewindPlan,
// Engine.Rewind): its lease held and the Rewound event written through its
// sinks, as a turn's events are. Its engine calls no model.
type Rewind struct {
	*Session
	// Past are the session's stored events when it was opened.
	Past []event.Event
}

// OpenRewind opens the stored session o.SessionID to be rewound, in an
// engine wired as Open wires one (the configuration of the project the
// session last ran in, else of o.ProjectRoot; the checkpoints; the
// session's sinks), minus the tools and the providers. A session the store
// does not have is an error wrapping session.ErrNotFound, and nothing is
// created for it. The at-rest key is made if the data directory names none
// (the Rewound event goes to the audit log), but checkpoints are never
// opened with a new key: that key could open no sealed checkpoint, so a
// data directory whose key is gone is refused.
func OpenRewind(ctx context.Context, o Options) (_ *Rewind, err error) {
	o, err = o.resolved()
	if err != nil {
		return nil, err
	}
	id := o.SessionID
	if err := checkSessionID(id); err != nil {
		return nil, err
	}
	// The session must exist: taking its lease would create it.
	if err := checkStored(ctx, o.Env, o.DataDir, id); err != nil {
		return nil, err
	}
	rw := &Rewind{Session: &Session{ID: id}}
	defer func() {
		if err != nil {
			err = errors.Join(err, rw.Close())
		}
	}()
	if err := rw.openLive(ctx, o); err != nil {
		return nil, err
	}
	if rw.LastSeq == 0 {
		// Removed between the check and the lease.
		return nil, fmt.Errorf("session %s: %w", id, session.ErrNotFound)
	}
	if rw.Past, err = rw.Store.Load(ctx, id); err != nil {
		return nil, err
	}
	// The files are the project's where the session last ran, wherever
	// the rewind is asked from.
	if root := sessionRoot(rw.Past); root != "" {
		o.ProjectRoot = root
	}
	o.NoModel = true
	if rw.Settings, err = LoadSettings(o); err != nil {
		return nil, err
	}
	cps, warning, err := rw.Settings.openCheckpoints(ctx, false)
	if err != nil {
		return nil, err
	}
	rw.warn(warning)
	if rw.Engine, err = rw.Settings.engine(engine.Deps{}, cps, rw.live); err != nil {
		return nil, err
	}
	if err := rw.Engine.Restore(id, rw.Past); err != nil {
		return nil, fmt.Errorf(i18n.Tr(rw.Settings.Lang, "cannot rewind: %w"), err)
	}
	return rw, nil
}

// checkStored fails, with an error wrapping session.ErrNotFound, unless
// the store of home holds session id. A missing database is not created.
func checkStored(ctx context.Context, env func(string) string, home, id string) error {
	db, err := DatabaseOf(env, home)
	if err != nil {
		return err
	}
	st, err := db.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	if st == nil {
		return fmt.Errorf("session %s: %w", id, session.ErrNotFound)
	}
	_, err = st.Info(ctx, id)
	return errors.Join(err, st.Close())
}

// sessionRoot is the project root the session last ran in ("" when no
// SessionStarted says).
func sessionRoot(events []event.Event) string {
	root := ""
	for _, e := range events {
		if p, ok := e.Payload.(event.SessionStartedPayload); ok && e.ParentCallID == "" && p.ProjectRoot != "" {
			root = p.ProjectRoot
		}
	}
	return root
}
