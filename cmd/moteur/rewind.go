package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

// Rewinds from the command line: sessions points lists where a session can
// go back to, sessions rewind goes there. A rewind restores the session in
// an engine of its own, under the session's lease like run --session, shows
// the plan (what each file would become, the calls nothing can undo), asks,
// then carries out exactly that plan and records it (Rewound). No model is
// called.

func (c *cli) sessionsPointsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "points [flags] ID",
		Short: c.tr("List the points a session can be rewound to, newest first"),
		Long: c.tr("List the rewind points of a stored session, newest first: each message the user sent (SEQ), when,\n" +
			"and its first line. moteur sessions rewind ID --to SEQ puts the files, the conversation or both\n" +
			"back to what they were when that message was sent."),
		Example: "  moteur sessions points s-20260101T120000-0123456789abcdef",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.sessionsPoints(cmd.Context(), args[0], asJSON))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print a JSON array of points (seq, prompt, time)"))
	return cmd
}

func (c *cli) sessionsPoints(ctx context.Context, id string, asJSON bool) error {
	events, _, err := c.loadStored(ctx, id)
	if err != nil {
		return err
	}
	// The points of the stored events, as the engine's Restore computes
	// them: reading them needs no lease.
	var state checkpoint.State
	for _, e := range events {
		state.Apply(e)
	}
	points := state.Points()
	if asJSON {
		return c.writeJSON(points)
	}
	if len(points) == 0 {
		_, err := fmt.Fprintln(c.stderr, c.trf("session %s has no rewind points: it has no message yet", id))
		return err
	}
	if err := c.writePointsTable(points); err != nil {
		return err
	}
	if at := compactedAt(events); at > 0 && points[len(points)-1].Seq < at {
		_, err := fmt.Fprintln(c.stderr, c.trf("(the conversation was compacted at seq %d: the points before it rewind with --mode code only)", at))
		return err
	}
	return nil
}

// writePointsTable prints the columns SEQ, TIME and PROMPT (the first line
// of the message, cut to the terminal's width, 60 runes when stdout is not
// a terminal). Times are relative on a terminal, RFC 3339 otherwise.
func (c *cli) writePointsTable(points []checkpoint.Point) error {
	tty := isTerminal(c.stdout)
	now := c.now()
	rows := [][3]string{{"SEQ", "TIME", "PROMPT"}}
	for _, p := range points {
		at := p.Time.Local().Format(time.RFC3339)
		if tty {
			at = agoIn(c.lang, now, p.Time)
		}
		rows = append(rows, [3]string{strconv.FormatUint(p.Seq, 10), at, firstLine(p.Prompt)})
	}
	var wSeq, wTime int
	for _, r := range rows {
		wSeq = max(wSeq, len(r[0]))
		wTime = max(wTime, utf8.RuneCountInString(r[1]))
	}
	width := 60
	if tty {
		if w, _, err := term.GetSize(int(c.stdout.(*os.File).Fd())); err == nil {
			width = max(20, w-wSeq-wTime-5)
		}
	}
	w := bufio.NewWriter(c.stdout)
	for n, r := range rows {
		prompt := r[2]
		if n > 0 {
			prompt = oneLine(prompt, width)
			if tty {
				prompt = cleanTerminal(prompt)
			}
		}
		fmt.Fprintf(w, "%*s  %-*s  %s\n", wSeq, r[0], wTime, r[1], prompt)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf(c.tr("write output: %w"), err)
	}
	return nil
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// compactedAt is the seq of the session's last compaction (0: none): the
// conversation cannot be rewound to a point before it.
func compactedAt(events []event.Event) uint64 {
	var at uint64
	for _, e := range events {
		if e.Type == event.ContextCompacted && e.ParentCallID == "" {
			at = e.Seq
		}
	}
	return at
}

type rewindFlags struct {
	to        uint64
	mode      string
	yes       bool
	overwrite []string
	json      bool
	dryRun    bool
}

func (c *cli) sessionsRewindCmd(g *globalFlags) *cobra.Command {
	f := &rewindFlags{}
	cmd := &cobra.Command{
		Use:   "rewind ID --to SEQ --mode code|conversation|both [flags]",
		Short: c.tr("Put a session's files or conversation back to a rewind point"),
		Long: c.tr("Put session ID back to the point SEQ, the message the user sent at that seq (see moteur sessions\n" +
			"points ID):\n" +
			"  --mode code          the files the agent changed since go back to their content then (files it\n" +
			"                       created are deleted); the conversation goes on, and the agent is told with\n" +
			"                       the next message\n" +
			"  --mode conversation  the conversation goes back to before that message; the files stay as they are\n" +
			"  --mode both          both\n\n" +
			"The plan is shown first: each file, ok or in conflict (changed since this session last wrote it,\n" +
			"by you, another session or a shell command), and the calls whose effects no rewind can undo (shell\n" +
			"commands). A conflict is left alone unless --overwrite names it. On a terminal you confirm the plan;\n" +
			"otherwise --yes is required (without it the plan is shown, and nothing done). --dry-run shows the\n" +
			"plan and stops there, on a terminal or not (with --json, as the JSON object without its result).\n" +
			"Exactly the plan shown is carried out: a file that changes in between is left alone and reported\n" +
			"failed. What a rewind replaces is kept too, so a rewind can be rewound.\n" +
			"The session must not be in use by another process. No model is called.\n\n" +
			"Exit status: 0 when every file was restored or left alone by choice, 1 when one could not be restored\n" +
			"or on an error, 2 on bad usage."),
		Example: "  moteur sessions rewind s-20260101T120000-0123456789abcdef --to 5 --mode code\n" +
			"  moteur sessions rewind s-20260101T120000-0123456789abcdef --to 5 --mode code --dry-run --json\n" +
			"  moteur sessions rewind s-20260101T120000-0123456789abcdef --to 5 --mode both --yes --overwrite src/main.go",
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("to") {
				return usageErrorf("%s", c.trf("sessions rewind needs --to SEQ: a rewind point (moteur sessions points %s lists them)", args[0]))
			}
			if !cmd.Flags().Changed("mode") {
				return usageErrorf("%s", c.tr("sessions rewind needs --mode code, conversation or both"))
			}
			return failure(c.sessionsRewind(cmd.Context(), g, args[0], f))
		},
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.to, "to", 0, c.tr("seq of the rewind point (see moteur sessions points ID)"))
	fl.StringVar(&f.mode, "mode", "", c.tr("what goes back: code (the files), conversation, or both"))
	fl.BoolVarP(&f.yes, "yes", "y", false, c.tr("rewind without asking"))
	fl.StringArrayVar(&f.overwrite, "overwrite", nil, c.tr("restore this file even though it changed since the agent wrote it (repeatable)"))
	fl.BoolVar(&f.json, "json", false, c.tr("print the plan and the result as one JSON object"))
	fl.BoolVar(&f.dryRun, "dry-run", false, c.tr("show the plan (what would be restored or deleted, the conflicts) and change nothing"))
	return cmd
}

// rewindMode parses --mode.
func (c *cli) rewindMode(s string) (engine.RewindMode, error) {
	switch m := engine.RewindMode(strings.ToLower(strings.TrimSpace(s))); m {
	case engine.RewindCode, engine.RewindConversation, engine.RewindBoth:
		return m, nil
	}
	return "", usageErrorf("%s", c.trf("invalid --mode %q: want code, conversation or both", s))
}

// rewindJSON is the --json output of sessions rewind.
type rewindJSON struct {
	Session     string          `json:"session"`
	ProjectRoot string          `json:"project_root"`
	ToSeq       uint64          `json:"to_seq"`
	Mode        string          `json:"mode"`
	Plan        checkpoint.Plan `json:"plan"`
	// DryRun: the plan alone, nothing done (no Result).
	DryRun bool          `json:"dry_run,omitempty"`
	Result *rewindResult `json:"result,omitempty"`
}

type rewindResult struct {
	Files  []event.RewoundFile `json:"files"`
	Prompt string              `json:"prompt,omitempty"`
	Note   string              `json:"note,omitempty"`
}

func (c *cli) sessionsRewind(ctx context.Context, g *globalFlags, id string, f *rewindFlags) (err error) {
	// Usage first: nothing is read or locked for a wrong command line.
	if err := c.checkID(c.tr("session id"), id); err != nil {
		return err
	}
	if _, err := c.langFlag(g.lang); err != nil {
		return err
	}
	mode, err := c.rewindMode(f.mode)
	if err != nil {
		return err
	}
	if f.to == 0 {
		return usageErrorf("%s", c.trf("invalid --to 0: seqs start at 1 (moteur sessions points %s lists the rewind points)", id))
	}
	if len(f.overwrite) > 0 && mode == engine.RewindConversation {
		return usageErrorf("%s", c.tr("--overwrite is for --mode code or both: --mode conversation leaves the files as they are"))
	}
	o, err := c.options(g)
	if err != nil {
		return err
	}
	o.SessionID = id
	rw, err := app.OpenRewind(ctx, o)
	if err != nil {
		return appError(c.notFound(id, err))
	}
	defer func() {
		if cerr := rw.Close(); cerr != nil && err == nil {
			err = fmt.Errorf(c.tr("session %s: %w"), id, cerr)
		}
	}()
	c.note(rw.Settings.Notes)
	c.warn(rw.Warnings)
	root := rw.ProjectRoot()

	if mode != engine.RewindCode {
		if at := compactedAt(rw.Past); f.to < at {
			// Checked before the plan is shown (the engine checks it too).
			if _, ok := pointPrompt(rw.Engine, id, f.to); !ok {
				return c.notAPointError(id, f.to)
			}
			return errors.New(c.trf("the conversation of session %s cannot be rewound to seq %d: it was compacted at seq %d since; --mode code puts the files back alone",
				id, f.to, at))
		}
	}
	plan, err := rw.Engine.RewindPlan(id, f.to)
	switch {
	case errors.Is(err, checkpoint.ErrNotAPoint):
		return c.notAPointError(id, f.to)
	case err != nil:
		return fmt.Errorf(c.tr("session %s: %w"), id, err)
	}
	if mode == engine.RewindConversation {
		// The files stay as they are: the plan has nothing to do.
		plan = checkpoint.Plan{ToSeq: f.to}
	}
	overwrite, err := c.overwritePaths(root, plan, f.overwrite)
	if err != nil {
		return err
	}

	prompt, _ := pointPrompt(rw.Engine, id, f.to)
	if f.dryRun {
		return c.showDryRun(rewindJSON{Session: id, ProjectRoot: root, ToSeq: f.to, Mode: string(mode), Plan: plan, DryRun: true},
			prompt, overwrite, f.json)
	}
	// The plan goes to stdout, except with --json, where stdout holds the
	// JSON object alone: there it is shown on stderr, and only to be
	// confirmed.
	if !f.json || !f.yes {
		planOut := c.stdout
		if f.json {
			planOut = c.stderr
		}
		if err := writePlanIn(planOut, c.lang, id, root, mode, plan, prompt, overwrite); err != nil {
			return err
		}
	}
	if !f.yes && !c.stdinTTY {
		return usageErrorf("%s", c.tr("sessions rewind asks for confirmation: pass --yes when standard input is not a terminal (the plan above is what it would do; nothing was changed)"))
	}
	if !f.yes {
		fmt.Fprint(c.stderr, c.tr("Rewind? [y/N] "))
		answer, _ := bufio.NewReader(c.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" && a != "o" && a != "oui" {
			return errors.New(c.trf("session %s not rewound: nothing changed", id))
		}
	}

	res, err := rw.Engine.Rewind(ctx, id, f.to, mode, plan, overwrite)
	switch {
	case errors.Is(err, checkpoint.ErrNotAPoint):
		return c.notAPointError(id, f.to)
	case errors.Is(err, engine.ErrConversationUnavailable):
		return errors.New(c.trf("the conversation of session %s cannot be rewound to seq %d: it was compacted since; --mode code puts the files back alone", id, f.to))
	case err != nil && res.Files != nil:
		// The files were handled, but the record of the rewind failed.
		return fmt.Errorf(c.tr("session %s: the files were rewound, but the rewind could not be recorded: %w"), id, err)
	case err != nil:
		return fmt.Errorf(c.tr("session %s: %w"), id, err)
	}

	failed := 0
	for _, r := range res.Files {
		if r.Status != checkpoint.RewoundOK && r.Status != checkpoint.RewoundOverwritten && r.Status != checkpoint.RewoundSkipped {
			failed++
		}
	}
	if f.json {
		files := res.Files
		if files == nil {
			files = []event.RewoundFile{}
		}
		if err := c.writeJSON(rewindJSON{Session: id, ProjectRoot: root, ToSeq: f.to, Mode: string(mode), Plan: plan,
			Result: &rewindResult{Files: files, Prompt: res.Prompt, Note: res.Note}}); err != nil {
			return err
		}
	} else {
		// A blank line between the plan and what was done.
		fmt.Fprintln(c.stdout)
		if err := writeRewindResultIn(c.stdout, c.lang, plan, res); err != nil {
			return err
		}
	}
	if failed > 0 {
		return errors.New(c.trf("session %s rewound to seq %d, but %s could not be restored (see above)", id, f.to,
			plural(failed, c.tr("1 file"), c.tr("%d files"))))
	}
	return nil
}

// showDryRun prints the plan of a rewind not carried out: rendered, or as
// the JSON object of sessions rewind --json without its result.
func (c *cli) showDryRun(plan rewindJSON, prompt string, overwrite []string, asJSON bool) error {
	if asJSON {
		return c.writeJSON(plan)
	}
	if err := writePlanIn(c.stdout, c.lang, plan.Session, plan.ProjectRoot, engine.RewindMode(plan.Mode), plan.Plan, prompt, overwrite); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.stderr, c.tr("moteur: dry run: nothing was changed (run it again without --dry-run to rewind)"))
	return err
}

// notAPointError says that seq is not a rewind point and how to list them.
func (c *cli) notAPointError(id string, seq uint64) error { return notAPointErrorIn(c.lang, id, seq) }

// notAPointError is c.notAPointError in English, for the callers that have
// no cli.
func notAPointError(id string, seq uint64) error { return notAPointErrorIn(i18n.EN, id, seq) }

func notAPointErrorIn(l i18n.Lang, id string, seq uint64) error {
	return errors.New(i18n.Trf(l, "seq %d of session %s is not a rewind point (a message the user sent): moteur sessions points %s lists them",
		seq, id, id))
}

// pointPrompt is the message of the rewind point seq of session id; ok is
// false when seq is not one of its points.
func pointPrompt(eng *engine.Engine, id string, seq uint64) (prompt string, ok bool) {
	for _, p := range eng.RewindPoints(id) {
		if p.Seq == seq {
			return p.Prompt, true
		}
	}
	return "", false
}

// overwritePaths turns the --overwrite arguments into the plan's paths
// (slash-separated, relative to root; absolute ones inside root are
// accepted). Each must be a file of the plan: a mistyped path would
// otherwise leave a conflict alone without a word.
func (c *cli) overwritePaths(root string, plan checkpoint.Plan, args []string) ([]string, error) {
	inPlan := make(map[string]bool, len(plan.Files))
	var conflicts []string
	for _, f := range plan.Files {
		inPlan[f.Path] = true
		if f.Status == checkpoint.StatusConflict {
			conflicts = append(conflicts, f.Path)
		}
	}
	var out []string
	for _, a := range args {
		p := a
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(root, p)
			if err != nil || !filepath.IsLocal(rel) {
				return nil, usageErrorf("%s", c.trf("--overwrite %s is outside the project %s", a, root))
			}
			p = rel
		}
		p = filepath.ToSlash(filepath.Clean(p))
		if !inPlan[p] {
			which := c.tr("it has no conflict")
			if len(conflicts) > 0 {
				which = c.trf("its conflicts: %s", strings.Join(conflicts, ", "))
			}
			return nil, usageErrorf("%s", c.trf("--overwrite %s: not a file of this rewind (%s)", a, which))
		}
		out = append(out, p)
	}
	return out, nil
}

// writePlanIn shows what the rewind will do, in language l.
func writePlanIn(out io.Writer, l i18n.Lang, id, root string, mode engine.RewindMode, plan checkpoint.Plan, prompt string, overwrite []string) error {
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, i18n.Trf(l, "Rewind of session %s to seq %d (%s), project %s", id, plan.ToSeq, mode, root))
	if mode != engine.RewindCode {
		fmt.Fprintln(w, i18n.Trf(l, "the conversation goes back to before: %s", oneLine(prompt, 100)))
	}
	if mode == engine.RewindConversation {
		fmt.Fprintln(w, i18n.Tr(l, "the files stay as they are"))
	} else {
		forced := make(map[string]bool, len(overwrite))
		for _, p := range overwrite {
			forced[p] = true
		}
		if len(plan.Files) == 0 {
			fmt.Fprintln(w, i18n.Trf(l, "no file to put back: the files this session changed are as they were at seq %d", plan.ToSeq))
		} else {
			fmt.Fprintln(w, i18n.Trf(l, "the files (%d):", len(plan.Files)))
		}
		wPath := 0
		for _, f := range plan.Files {
			wPath = max(wPath, utf8.RuneCountInString(f.Path))
		}
		for _, f := range plan.Files {
			fmt.Fprintf(w, "  %-8s  %-*s  %s\n", f.Status, wPath, f.Path, planAction(l, f, forced[f.Path]))
		}
		if n := len(plan.NotUndoable); n > 0 {
			calls := make([]string, 0, n)
			for _, c := range plan.NotUndoable {
				call := i18n.Trf(l, "%s at seq %d", c.Tool, c.Seq)
				if c.Risk == "destructive" {
					call += i18n.Tr(l, " (destructive)")
				}
				calls = append(calls, call)
			}
			fmt.Fprintln(w, i18n.Trf(l, "warning: %s since seq %d cannot be undone (a rewind leaves their effects): %s",
				plural(n, i18n.Tr(l, "1 call"), i18n.Tr(l, "%d calls")), plan.ToSeq, strings.Join(calls, ", ")))
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf(i18n.Tr(l, "write output: %w"), err)
	}
	return nil
}

// planAction says, in language l, what the rewind does to a file of the
// plan, and for a conflict why it is one.
func planAction(l i18n.Lang, f checkpoint.FilePlan, overwrite bool) string {
	if f.Status == checkpoint.StatusOK {
		if f.Restore == "" {
			return i18n.Tr(l, "delete it (it did not exist at the point)")
		}
		return i18n.Tr(l, "restore its content at the point")
	}
	why := conflictReason(l, f)
	switch {
	case f.Error != "":
		return i18n.Trf(l, "%s: left alone", why)
	case overwrite && f.Restore == "":
		return i18n.Trf(l, "%s; --overwrite: delete it (it did not exist at the point)", why)
	case overwrite:
		return i18n.Trf(l, "%s; --overwrite: restore its content at the point", why)
	case f.Restore == "":
		return i18n.Trf(l, "%s: left alone (--overwrite %s would delete it (it did not exist at the point))", why, f.Path)
	}
	return i18n.Trf(l, "%s: left alone (--overwrite %s would restore its content at the point)", why, f.Path)
}

// conflictReason explains a conflict, in language l: what is on disk
// (Current) is not what this session left there (Left).
func conflictReason(l i18n.Lang, f checkpoint.FilePlan) string {
	switch {
	case f.Error != "":
		return i18n.Trf(l, "could not be read: %s", oneLine(f.Error, 200))
	case f.Current == "" && f.Left != "":
		return i18n.Tr(l, "deleted since this session wrote it")
	case f.Current != "" && f.Left == "":
		return i18n.Tr(l, "this session deleted it, and it exists again")
	}
	return i18n.Tr(l, "changed since this session last wrote it")
}

// writeRewindResultIn shows what the rewind did, in language l.
func writeRewindResultIn(out io.Writer, l i18n.Lang, plan checkpoint.Plan, res engine.RewindResult) error {
	w := bufio.NewWriter(out)
	planned := make(map[string]checkpoint.FilePlan, len(plan.Files))
	for _, f := range plan.Files {
		planned[f.Path] = f
	}
	wStatus, wPath := 0, 0
	for _, r := range res.Files {
		wStatus = max(wStatus, len(r.Status))
		wPath = max(wPath, utf8.RuneCountInString(r.Path))
	}
	for _, r := range res.Files {
		f := planned[r.Path]
		var what string
		switch r.Status {
		case checkpoint.RewoundOK, checkpoint.RewoundOverwritten:
			what = i18n.Tr(l, "restored")
			if f.Restore == "" {
				what = i18n.Tr(l, "deleted")
			}
		case checkpoint.RewoundSkipped:
			what = i18n.Trf(l, "left alone: %s (--overwrite %s restores it)", conflictReason(l, f), r.Path)
		default:
			what = i18n.Trf(l, "not restored: %s", oneLine(r.Error, 300))
		}
		fmt.Fprintf(w, "%-*s  %-*s  %s\n", wStatus, r.Status, wPath, r.Path, what)
	}
	switch {
	case res.Prompt != "":
		fmt.Fprintln(w, i18n.Trf(l, "the conversation is back before: %s", oneLine(res.Prompt, 200)))
	case res.Note != "":
		fmt.Fprintln(w, i18n.Trf(l, "the conversation goes on; with the next message the agent reads: %s", res.Note))
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf(i18n.Tr(l, "write output: %w"), err)
	}
	return nil
}
