package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/suggest"
)

// --session, --continue (-c) and --new-session choose the session of run,
// chat and ask: a stored one by its id, the most recent one of the project,
// or a new one under an id of the user's choice. The choice is checked
// against the store before anything is opened or created, so a mistyped id
// is an error that names the closest stored ids, never a new empty session.

// sessionFlags are --continue and --new-session, and the command's own
// --session, which ends up holding the chosen session's id ("": a new one,
// named by the command).
type sessionFlags struct {
	id    *string
	cont  bool
	newID string
}

// maxSuggestions is how many stored ids an unknown --session lists.
const maxSuggestions = 3

// addSessionFlags adds --continue and --new-session to cmd, whose --session
// is bound to id, and resolves the three before cmd runs (the command then
// reads only id).
func (c *cli) addSessionFlags(cmd *cobra.Command, id *string) {
	f := &sessionFlags{id: id}
	fl := cmd.Flags()
	fl.BoolVarP(&f.cont, "continue", "c", false, c.tr("continue the most recent session of this project (the working directory)"))
	fl.StringVar(&f.newID, "new-session", "", c.tr("start a new session under the id `ID` (refused if a session has it already)"))
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return c.resolveSession(cmd.Context(), f) }
}

// resolveSession puts the id of the session the flags choose in f.id: the
// one --session names, which must be stored; the project's most recent with
// --continue; --new-session's, which must not be. At most one of them is
// given.
func (c *cli) resolveSession(ctx context.Context, f *sessionFlags) error {
	given := 0
	for _, set := range []bool{*f.id != "", f.cont, f.newID != ""} {
		if set {
			given++
		}
	}
	if given == 0 {
		return nil
	}
	if given > 1 {
		return usageErrorf("%s", c.tr("--session, --continue and --new-session exclude one another: give one of them"))
	}
	switch {
	case f.newID != "":
		if err := c.checkID("--new-session", f.newID); err != nil {
			return err
		}
	case *f.id != "":
		if err := c.checkSessionID(*f.id); err != nil {
			return err
		}
	}
	db, err := app.DatabaseFrom(c.env)
	if err != nil {
		return failure(err)
	}
	st, err := db.OpenExistingStore(ctx)
	if err != nil {
		return failure(err)
	}
	if st != nil {
		defer st.Close()
	}
	switch {
	case f.newID != "":
		return c.newSession(ctx, st, f)
	case f.cont:
		return c.continueLatest(ctx, st, f)
	}
	return c.storedSession(ctx, st, *f.id)
}

// newSession checks that no stored session has --new-session's id.
func (c *cli) newSession(ctx context.Context, st session.Store, f *sessionFlags) error {
	if st != nil {
		_, err := st.Info(ctx, f.newID)
		switch {
		case err == nil:
			return stateErrorf(c.tr("--new-session %s: a session with this id exists already (continue it with --session %s, or choose another id)"), f.newID, f.newID)
		case !errors.Is(err, session.ErrNotFound):
			return failure(err)
		}
	}
	*f.id = f.newID
	return nil
}

// continueLatest chooses the project's session with the latest activity.
func (c *cli) continueLatest(ctx context.Context, st session.Store, f *sessionFlags) error {
	root, err := c.projectRoot()
	if err != nil {
		return failure(err)
	}
	var latest []session.Info
	if st != nil {
		page, err := st.List(ctx, session.ListOptions{Limit: 1, ProjectRoot: root})
		if err != nil {
			return failure(err)
		}
		latest = page.Sessions
	}
	if len(latest) == 0 {
		return stateErrorf(c.tr("--continue: no session of this project (%s) is stored yet: run without --continue to start one"), root)
	}
	*f.id = latest[0].ID
	return nil
}

// storedSession checks that id names a stored session; the error for one
// that does not lists the stored ids closest to it.
func (c *cli) storedSession(ctx context.Context, st session.Store, id string) error {
	if st == nil {
		return stateErrorf(c.tr("--session %s: no session is stored yet (start one under this id with --new-session %s)"), id, id)
	}
	_, err := st.Info(ctx, id)
	if err == nil {
		return nil
	}
	if !errors.Is(err, session.ErrNotFound) {
		return failure(err)
	}
	ids, err := storedIDs(ctx, st)
	if err != nil {
		return failure(err)
	}
	msg := c.trf("--session %s: no stored session has this id", id)
	if close := closestIDs(id, ids, maxSuggestions); len(close) > 0 {
		msg += c.trf("; the closest stored: %s", strings.Join(close, ", "))
	}
	return stateErrorf(c.tr("%s (moteur sessions list shows them all; --new-session %s starts a new session under this id)"), msg, id)
}

// stateErrorf reports a command line that does not fit what is stored (a
// session that does not exist, or exists already): exit 2, without the
// usage hint, since the message says what to do.
func stateErrorf(format string, args ...any) error {
	return &statusError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// storedIDs are the ids of every stored session, most recently active
// first.
func storedIDs(ctx context.Context, st session.Store) ([]string, error) {
	var ids []string
	opts := session.ListOptions{Limit: 1000}
	for {
		page, err := st.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, s := range page.Sessions {
			ids = append(ids, s.ID)
		}
		if page.Next == "" {
			return ids, nil
		}
		opts.Cursor = page.Next
	}
}

// closestIDs are at most n of ids, the closest to id first: those that
// start with id (an id typed in part), then those a few typos away (by edit
// distance), then the rest by the length of the prefix they share with id
// (ids made by Moteur share their date). Ties keep the order of ids.
func closestIDs(id string, ids []string, n int) []string {
	type scored struct {
		id            string
		extends, typo bool
		dist, shared  int
	}
	typos := max(2, len(id)/4)
	all := make([]scored, len(ids))
	for i, s := range ids {
		d := suggest.Distance(id, s)
		all[i] = scored{id: s, extends: strings.HasPrefix(s, id), typo: d <= typos, dist: d, shared: commonPrefix(id, s)}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.extends != b.extends:
			return before(a.extends)
		case a.typo != b.typo:
			return before(a.typo)
		case a.typo && a.dist != b.dist:
			return a.dist - b.dist
		case a.shared != b.shared:
			return b.shared - a.shared
		}
		return a.dist - b.dist
	})
	out := make([]string, 0, min(n, len(all)))
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.id)
	}
	return out
}

// before orders first what has a property (first true) over what has not.
func before(first bool) int {
	if first {
		return -1
	}
	return 1
}

// commonPrefix is the length of the longest prefix a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
