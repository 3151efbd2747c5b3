package main

import (
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
)

// checkSessionID rejects an id given with --session that cannot name a log
// file safely (it would otherwise let "../x" write outside the data dir).
func (c *cli) checkSessionID(id string) error { return c.checkID("--session", id) }

// checkID checks a session id given as what (a flag, or "session id" for
// an argument), in the run's language.
func (c *cli) checkID(what, id string) error { return checkIDIn(c.lang, what, id) }

// checkIDIn checks id, its error in language l.
func checkIDIn(l i18n.Lang, what, id string) error {
	if err := app.CheckSessionID(id); err != nil {
		return usageErrorf("%s: %v", i18n.Trf(l, "invalid %s %q", what, id), err)
	}
	return nil
}
