package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

func (c *cli) auditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: c.tr("Check the audit logs"),
		Args:  c.noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	verify := &cobra.Command{
		Use:   "verify [--json] [SESSION|FILE...]",
		Short: c.tr("Verify audit logs against the at-rest key and the session store"),
		Long: c.tr("Verify the audit log of each SESSION (an id) or FILE (a path: it ends in .jsonl or holds a '/'), or with\n" +
			"none every session of $MOTEUR_HOME and every log in $MOTEUR_HOME/audit. Each record must chain to the one\n" +
			"before it, carry the MAC of the at-rest key, and the log must hold one record per stored event, each with\n" +
			"the MAC the store recorded with that event: a record changed, removed, inserted or forged, a log cut\n" +
			"short, emptied, rolled back to an older copy, rewritten without the key, or missing, is found.\n" +
			"Prints one line per log:\n" +
			"  ok N records  PATH              sound and authenticated (a note may follow)\n" +
			"  unkeyed N records  PATH: …     an earlier version's log: its integrity checked, not its authenticity\n" +
			"  unverified N records  PATH: …  sound as far as it could be checked without the at-rest key\n" +
			"  broken PATH: record I (line L): why   the first bad record (or the first one missing)\n" +
			"  missing PATH: …                a session with stored events and no audit log\n" +
			"  unreadable PATH: …\n" +
			"With --json, one JSON object per log instead (path, session_id, status, records, events, first_index,\n" +
			"unkeyed_records, authenticated, stored, bad_record {index, line, reason}, notes, error).\n\n" +
			"The MACs need the at-rest key (never created here); without it, what can be is checked and the\n" +
			"command fails, naming the key file.\n\n" +
			"A session being run meanwhile can show one record more than its store: verify it once it stops.\n\n" +
			"Exit status: 0 when every log is ok or unkeyed; 1 when one is not, or when the at-rest key is needed and\n" +
			"cannot be loaded; 2 on bad usage."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.auditVerify(cmd.Context(), args, asJSON))
		},
	}
	verify.Flags().BoolVar(&asJSON, "json", false, c.tr("one JSON object per log"))
	repair := &cobra.Command{
		Use:   "repair FILE",
		Short: c.tr("Set aside the torn last record of an audit log so its session can continue"),
		Long: c.tr("A power loss in the middle of a write can leave an audit log whose last line is incomplete; such a\n" +
			"log is not continued. repair moves that incomplete line to FILE.torn-TIME, kept as evidence, and cuts\n" +
			"the log after its last complete record. Everything before must verify, with the at-rest key and against\n" +
			"the session store: a chain broken elsewhere is refused, since that is evidence of a change, not damage.\n" +
			"A log with no torn record is verified all the same: one that fails is reported tampered, at the record,\n" +
			"line and seq of its first bad record, and left exactly as it is.\n\n" +
			"Exit status: 0 when the log was repaired; 1 when there was nothing to repair, or it is tampered, or on an error."),
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.auditRepair(cmd.Context(), args[0]))
		},
	}
	cmd.AddCommand(verify, repair)
	return cmd
}

func (c *cli) auditRepair(ctx context.Context, path string) error {
	home, err := app.DataDir(c.env)
	if err != nil {
		return err
	}
	chk, stored, err := c.auditCheckOf(ctx, home, path)
	if err != nil {
		return err
	}
	r, err := event.RepairAudit(path, chk, stored, time.Now())
	if err != nil {
		return err
	}
	rep, err := event.VerifyAuditFile(path, chk)
	if err != nil && !errors.Is(err, event.ErrAuditAhead) {
		return fmt.Errorf(c.tr("after the repair: %w"), err)
	}
	rebuilt := ""
	if r.Rebuilt > 0 {
		rebuilt = c.trf("wrote the record of seq %d again from the store, which holds its event and its MAC", r.Rebuilt) + "\n"
	}
	ok := auditResult{Status: "ok", Records: rep.Records, Path: path}
	_, err = fmt.Fprintf(c.stdout, "%s\n%s%s\n", c.trf("set the torn record aside in %s", r.Aside), rebuilt, ok.text(c.lang))
	return err
}

// auditCheckOf is what the log at path is checked against for a repair:
// the key (a log of an earlier version needs none) and what the store holds
// of the session its records name, with its events.
func (c *cli) auditCheckOf(ctx context.Context, home, path string) (event.AuditCheck, []event.Event, error) {
	var chk event.AuditCheck
	if key, err := app.AtRestKey(c.env, home, false); err == nil {
		chk.Key = key.Subkey(atrest.PurposeAudit)
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if f, err := os.Open(path); err == nil {
		// The records say whose log it is; a log too damaged to say is
		// named by its file.
		if rep, _ := event.VerifyAudit(f, event.AuditCheck{}); rep.SessionID != "" {
			id = rep.SessionID
		}
		f.Close()
	}
	chk.SessionID = id
	db, err := app.DatabaseOf(c.env, home)
	if err != nil {
		return chk, nil, err
	}
	st, err := db.OpenExistingStore(ctx)
	if err != nil || st == nil {
		return chk, nil, err
	}
	defer st.Close()
	if chk.Store, err = app.StoredAudit(ctx, st, id); err != nil || chk.Store == nil {
		return chk, nil, err
	}
	evs, err := st.Load(ctx, id)
	return chk, evs, err
}

// auditResult is what auditVerify found of one log: a line of its output.
type auditResult struct {
	Path      string `json:"path"`
	SessionID string `json:"session_id,omitempty"`
	// Status is ok, unkeyed, unverified, broken, missing or unreadable.
	Status  string `json:"status"`
	Records int    `json:"records"`
	// Events is how many events the store holds of the session; absent
	// when it holds none (Stored false).
	Events        *int       `json:"events,omitempty"`
	First         uint64     `json:"first_index"`
	Unkeyed       int        `json:"unkeyed_records"`
	Authenticated bool       `json:"authenticated"`
	Stored        bool       `json:"stored"`
	Bad           *badRecord `json:"bad_record,omitempty"`
	Notes         []string   `json:"notes,omitempty"`
	Error         string     `json:"error,omitempty"`
}

type badRecord struct {
	Index  uint64 `json:"index"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// fails reports whether the result makes the command fail.
func (r *auditResult) fails() bool { return r.Status != "ok" && r.Status != "unkeyed" }

// text is the result's line in language l. The status stays the word of
// the JSON output, first on the line, in every language: scripts read it.
func (r *auditResult) text(l i18n.Lang) string {
	notes := ""
	if len(r.Notes) > 0 {
		notes = i18n.Trf(l, ": %s", strings.Join(r.Notes, "; "))
	}
	switch r.Status {
	case "ok", "unkeyed", "unverified":
		return i18n.Trf(l, "%s %d records  %s%s", r.Status, r.Records, r.Path, notes)
	case "broken":
		if r.Bad.Line == 0 { // a record of another log: a fork's source
			return i18n.Trf(l, "broken %s: record %d: %s", r.Path, r.Bad.Index, r.Bad.Reason)
		}
		return i18n.Trf(l, "broken %s: record %d (line %d): %s", r.Path, r.Bad.Index, r.Bad.Line, r.Bad.Reason)
	default:
		return i18n.Trf(l, "%s %s: %s", r.Status, r.Path, r.Error)
	}
}

// auditVerify verifies the logs args names (sessions or files), or every
// one.
func (c *cli) auditVerify(ctx context.Context, args []string, asJSON bool) error {
	home, err := app.DataDir(c.env)
	if err != nil {
		return err
	}
	var key []byte
	k, keyErr := app.AtRestKey(c.env, home, false)
	if keyErr == nil {
		key = k.Subkey(atrest.PurposeAudit)
	}
	db, err := app.DatabaseOf(c.env, home)
	if err != nil {
		return err
	}
	st, err := db.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	targets, err := c.auditTargets(ctx, home, st, args)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		_, err := fmt.Fprintln(c.stderr, c.trf("no audit logs in %s", app.AuditDir(home)))
		return err
	}
	// The JSON output is a contract: its notes and reasons stay in English.
	l := c.lang
	if asJSON {
		l = i18n.EN
	}
	bad, unverified := 0, 0
	for _, t := range targets {
		r := verifyOne(ctx, l, home, st, key, t)
		if r.fails() {
			bad++
		}
		if r.Status == "unverified" {
			unverified++
		}
		var line []byte
		if asJSON {
			line, _ = json.Marshal(r)
		} else {
			line = []byte(r.text(l))
		}
		if _, err := fmt.Fprintf(c.stdout, "%s\n", line); err != nil {
			return fmt.Errorf(c.tr("write output: %w"), err)
		}
	}
	// No key and none named by the data directory: only logs of earlier
	// versions can be there, and they need none. Any other trouble with
	// the key fails the command, which could not authenticate the logs.
	keyNeeded := keyErr != nil && (!errors.Is(keyErr, atrest.ErrNoKey) || unverified > 0)
	switch {
	case bad > 0 && keyNeeded:
		return fmt.Errorf(c.tr("%d of %d audit logs failed verification; their MACs were not checked: %w"), bad, len(targets), keyErr)
	case bad > 0:
		return errors.New(c.trf("%d of %d audit logs failed verification", bad, len(targets)))
	case keyNeeded:
		return fmt.Errorf(c.tr("the audit logs were not authenticated: %w"), keyErr)
	}
	return nil
}

// auditTarget is one log to verify: the file, and the session it is of
// ("" when a named file does not say).
type auditTarget struct {
	path, session string
	named         bool // a FILE argument: its records say its session
}

// auditTargets lists the logs to verify: those args names, or every
// session of the store and every file in the audit directory, by path.
func (c *cli) auditTargets(ctx context.Context, home string, st session.Store, args []string) ([]auditTarget, error) {
	var out []auditTarget
	if len(args) > 0 {
		for _, a := range args {
			if strings.HasSuffix(a, ".jsonl") || strings.ContainsRune(a, filepath.Separator) || strings.ContainsRune(a, '/') {
				out = append(out, auditTarget{path: a, named: true})
				continue
			}
			if err := c.checkID(c.tr("session id"), a); err != nil {
				return nil, err
			}
			out = append(out, auditTarget{path: app.AuditPath(home, a), session: a})
		}
		return out, nil
	}
	ids := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(app.AuditDir(home), "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf(c.tr("list audit logs: %w"), err)
	}
	for _, f := range files {
		ids[strings.TrimSuffix(filepath.Base(f), ".jsonl")] = true
	}
	if st != nil {
		for cursor := ""; ; {
			page, err := st.List(ctx, session.ListOptions{Limit: 1000, Cursor: cursor})
			if err != nil {
				return nil, err
			}
			for _, i := range page.Sessions {
				ids[i.ID] = true
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
	}
	for id := range ids {
		out = append(out, auditTarget{path: app.AuditPath(home, id), session: id})
	}
	slices.SortFunc(out, func(a, b auditTarget) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// verifyOne verifies one log with key (nil: none) against the store; its
// notes and reasons are in language l.
func verifyOne(ctx context.Context, l i18n.Lang, home string, st session.Store, key []byte, t auditTarget) *auditResult {
	r := &auditResult{Path: t.path, SessionID: t.session}
	unreadable := func(err error) *auditResult {
		r.Status, r.Error = "unreadable", err.Error()
		return r
	}
	f, err := os.Open(t.path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return unreadable(err)
	}
	if f != nil {
		defer f.Close()
	}
	if t.named {
		if missing {
			return unreadable(err)
		}
		// A named file says whose log it is.
		rep, _ := event.VerifyAudit(f, event.AuditCheck{})
		r.SessionID = rep.SessionID
		if _, err := f.Seek(0, 0); err != nil {
			return unreadable(err)
		}
	}
	var stored *event.AuditStore
	var info session.Info
	if st != nil && r.SessionID != "" {
		if info, err = st.Info(ctx, r.SessionID); err == nil {
			stored, err = app.StoredAudit(ctx, st, r.SessionID)
		}
		if err != nil && !errors.Is(err, session.ErrNotFound) {
			return unreadable(err)
		}
	}
	if stored != nil {
		r.Stored = true
		n := len(stored.Heads)
		r.Events = &n
	}
	if missing {
		if stored != nil && uint64(len(stored.Heads)) > stored.First {
			r.Status = "missing"
			r.Error = i18n.Trf(l, "session %s has %d stored events but no audit log (deleted or moved)", r.SessionID, uint64(len(stored.Heads))-stored.First)
			return r
		}
		if stored == nil {
			r.Status = "missing"
			r.Error = i18n.Trf(l, "no audit log, and no session %s in the store", r.SessionID)
			return r
		}
		// A fork without events of its own: its log starts with the first.
		r.Status, r.First = "ok", stored.First
		r.Notes = append(r.Notes, i18n.Trf(l, "no log yet: a fork of %s with no event of its own", info.ParentID))
		checkForkLink(l, home, info, stored, r)
		return r
	}
	rep, err := event.VerifyAudit(f, event.AuditCheck{Key: key, SessionID: r.SessionID, Store: stored})
	r.Records, r.First, r.Unkeyed, r.Authenticated = rep.Records, rep.First, rep.Unkeyed, rep.Authenticated && rep.Records > rep.Unkeyed
	if r.SessionID == "" {
		r.SessionID = rep.SessionID
	}
	var ae *event.AuditError
	switch {
	case errors.As(err, &ae):
		r.Status, r.Bad = "broken", &badRecord{Index: ae.Index, Line: ae.Line, Reason: ae.Reason}
		return r
	case err != nil:
		return unreadable(err)
	}
	switch {
	case stored == nil && r.SessionID != "":
		r.Notes = append(r.Notes, i18n.Trf(l, "session %s is not in the store (removed?): its record count and heads not compared", r.SessionID))
	case stored == nil:
		r.Notes = append(r.Notes, i18n.Tr(l, "an empty log, of no stored session"))
	}
	switch {
	case rep.Records > 0 && rep.Unkeyed == rep.Records:
		r.Status = "unkeyed"
		r.Notes = append([]string{i18n.Tr(l, "unkeyed log of an earlier version: integrity checked, not authenticity (no MAC, no heads in the store)")}, r.Notes...)
	case key == nil:
		r.Status = "unverified"
		r.Notes = append([]string{i18n.Tr(l, "MACs not checked without the at-rest key")}, r.Notes...)
	default:
		r.Status = "ok"
		if rep.Unkeyed > 0 {
			r.Notes = append(r.Notes, i18n.Trf(l, "records %d to %d are unkeyed, of an earlier version: authenticated as they were when record %d chained onto them",
				rep.First, rep.First+uint64(rep.Unkeyed)-1, rep.First+uint64(rep.Unkeyed)))
		}
	}
	if stored != nil && stored.First > 0 {
		checkForkLink(l, home, info, stored, r)
	}
	return r
}

// checkForkLink checks a fork's copied events against its source's log:
// the head the fork copied with its last copied event must be the MAC of
// that event's record there. The source's log is verified as its own.
// Notes and reasons are in language l.
func checkForkLink(l i18n.Lang, home string, info session.Info, stored *event.AuditStore, r *auditResult) {
	at := stored.First
	src := app.AuditPath(home, info.ParentID)
	head := stored.Heads[at-1]
	if head == nil {
		r.Notes = append(r.Notes, i18n.Trf(l, "its first %d events, copied from %s, are of an earlier version: not linked to %s", at, info.ParentID, src))
		return
	}
	fail := func(reason string) {
		r.Status, r.Bad = "broken", &badRecord{Index: at - 1, Line: 0, Reason: reason}
	}
	f, err := os.Open(src)
	if err != nil {
		fail(i18n.Trf(l, "the fork's first %d events are in the log of %s, which cannot be read: %v", at, info.ParentID, err))
		return
	}
	defer f.Close()
	seal, keyed, err := event.AuditSealOf(f, at)
	switch {
	case err != nil:
		fail(i18n.Trf(l, "the fork's first %d events are in %s: %v", at, src, err))
	case !keyed || seal != hex.EncodeToString(head):
		fail(i18n.Trf(l, "the head the fork copied for seq %d is not the mac of that record in %s: the source's log or the fork's store was changed", at, src))
	default:
		r.Notes = append(r.Notes, i18n.Trf(l, "its first %d events are in %s", at, src))
	}
}
