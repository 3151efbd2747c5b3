package main

import "github.com/moteur/moteur/app"

// checkSessionID rejects an id given with --session that cannot name a log
// file safely (it would otherwise let "../x" write outside the data dir).
func checkSessionID(id string) error { return checkID("--session", id) }

// checkID checks a session id given as what (a flag, or "session id" for
// an argument).
func checkID(what, id string) error {
	if err := app.CheckSessionID(id); err != nil {
		return usageErrorf("invalid %s %q: %v", what, id, err)
	}
	return nil
}
