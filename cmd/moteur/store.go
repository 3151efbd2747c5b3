package main

import (
	"context"
	"errors"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// openStoredSession opens the store for a command about one stored
// session and checks the session is there: a missing database or session
// is "session ID not found". The caller closes the store.
func (c *cli) openStoredSession(ctx context.Context, db app.Database, id string) (session.Store, session.Info, error) {
	st, err := db.OpenExistingStore(ctx)
	if err != nil {
		return nil, session.Info{}, err
	}
	if st == nil {
		return nil, session.Info{}, c.errSessionNotFound(id)
	}
	info, err := st.Info(ctx, id)
	if err != nil {
		st.Close()
		return nil, session.Info{}, c.notFound(id, err)
	}
	return st, info, nil
}

// errSessionNotFound is the message for an id the store does not know, in
// the run's language.
func (c *cli) errSessionNotFound(id string) error { return sessionNotFoundIn(c.lang, id) }

func sessionNotFoundIn(l i18n.Lang, id string) error {
	return errors.New(i18n.Trf(l, "session %s not found", id))
}
