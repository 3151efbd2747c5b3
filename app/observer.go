package app

import (
	"context"
	"errors"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// Observer is the session store of a data directory with an engine that
// runs no turn: it follows sessions as their turns run in any process
// (Engine.SubscribeSession polls the store) and answers the permission
// requests those turns wait on (Engine.Respond, kept by the store). It
// writes no event, so it takes no lease and opens no audit log, and it
// needs no model, no at-rest key and no configuration: the session may be
// of another project than the one it is opened from, and its turn, in the
// process that runs it, applies that process's rules.
type Observer struct {
	// Engine follows sessions and answers their requests; SubmitInput
	// fails with engine.ErrNoProvider.
	Engine *engine.Engine
	// Store is the session store; it is closed with the observer.
	Store session.Store
	// Info describes the session Options.SessionID names, as it was when
	// the observer opened (zero when none was named).
	Info session.Info
}

// OpenObserver opens the store of the data directory o names, and checks
// that it holds session o.SessionID when one is named: a missing database
// or session is an error wrapping session.ErrNotFound, and nothing is
// created. Only DataDir, Env, Now and SessionID of o are used.
func OpenObserver(ctx context.Context, o Options) (_ *Observer, err error) {
	o, err = o.resolved()
	if err != nil {
		return nil, err
	}
	if o.SessionID != "" {
		if err := checkSessionID(o.SessionID); err != nil {
			return nil, err
		}
	}
	db, err := DatabaseOf(o.Env, o.DataDir)
	if err != nil {
		return nil, err
	}
	st, err := db.OpenExistingStore(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, &translatedError{err: session.ErrNotFound,
			msg: i18n.Trf(resolveLang(o.Lang, "", o.Env), "no session store in %s: session not found", o.DataDir)}
	}
	ob := &Observer{Store: st}
	defer func() {
		if err != nil {
			err = errors.Join(err, ob.Close())
		}
	}()
	if o.SessionID != "" {
		if ob.Info, err = st.Info(ctx, o.SessionID); err != nil {
			return nil, err
		}
	}
	if ob.Engine, err = engine.New(engine.Deps{Store: st, Now: o.Now}); err != nil {
		return nil, err
	}
	return ob, nil
}

// Close closes the store; the followers of the engine end with their
// contexts.
func (ob *Observer) Close() error { return ob.Store.Close() }
