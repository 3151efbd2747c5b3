package main

import (
	"context"
	"fmt"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/session"
)

// openStoredSession opens the store for a command about one stored
// session and checks the session is there: a missing database or session
// is "session ID not found". The caller closes the store.
func openStoredSession(ctx context.Context, home, id string) (*session.SQLite, session.Info, error) {
	st, err := app.OpenExistingStore(ctx, home)
	if err != nil {
		return nil, session.Info{}, err
	}
	if st == nil {
		return nil, session.Info{}, errSessionNotFound(id)
	}
	info, err := st.Info(ctx, id)
	if err != nil {
		st.Close()
		return nil, session.Info{}, notFound(id, err)
	}
	return st, info, nil
}

// errSessionNotFound is the message for an id the store does not know.
func errSessionNotFound(id string) error {
	return fmt.Errorf("session %s not found", id)
}
