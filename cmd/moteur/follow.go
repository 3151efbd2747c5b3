package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

// Following a session from the command line: the events of a session are
// printed as its turns run, whichever process runs them. The engine of an
// app.Observer reads the stored events, then polls the store for those
// another process appends (Engine.SubscribeSession); it runs no turn and
// takes no lease, so following never gets in the way of the session.

type followFlags struct {
	json         bool
	after        uint64
	untilTurnEnd bool
}

func (c *cli) sessionsFollowCmd(g *globalFlags) *cobra.Command {
	f := &followFlags{}
	cmd := &cobra.Command{
		Use:   "follow ID [--json] [--after SEQ] [--until-turn-end]",
		Short: c.tr("Print a session's events as its turns run, in this process or another"),
		Long: c.tr("Print the events of session ID as moteur run prints a turn: first those stored after seq SEQ\n" +
			"(--after, default 0: all of them), then each new one as the session's turns run, whichever\n" +
			"process runs them (moteur run, chat or serve, on this machine or another sharing the store).\n" +
			"It takes no lease and needs no model: the session goes on as if nobody followed it.\n" +
			"The streamed text of an answer is shown once its message is stored.\n\n" +
			"With --json, print every event as one JSON object per line, exactly as moteur run --json does.\n" +
			"A follower that fell behind is told so (a Warning of kind follower_lagged, a note on standard\n" +
			"error without --json), and goes on with the stored events it missed.\n\n" +
			"It runs until Ctrl-C (exit status 0). With --until-turn-end it exits, 0, once a turn has ended\n" +
			"that had not ended when it began: after the TurnCompleted of the turn running then, or, when\n" +
			"none was, of the next turn to run.\n\n" +
			"Exit status: 0 when stopped by Ctrl-C or at the turn's end, 1 on an error (an unknown session,\n" +
			"--after beyond the session's end, the store failing), 2 on bad usage."),
		Example: "  moteur sessions follow s-20260101T120000-0123456789abcdef\n" +
			"  moteur sessions follow --json --after 42 s-20260101T120000-0123456789abcdef\n" +
			"  moteur sessions follow --until-turn-end s-20260101T120000-0123456789abcdef && echo the turn is over",
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.sessionsFollow(cmd.Context(), g, args[0], f))
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, c.tr("print every event as one JSON object per line, and nothing else, on stdout"))
	fl.Uint64Var(&f.after, "after", 0, c.tr("print the stored events after this seq only (0: all of them)"))
	fl.BoolVar(&f.untilTurnEnd, "until-turn-end", false, c.tr("exit once the turn running (or, when none is, the next one) has ended"))
	return cmd
}

func (c *cli) sessionsFollow(ctx context.Context, g *globalFlags, id string, f *followFlags) error {
	if err := c.checkID(c.tr("session id"), id); err != nil {
		return err
	}
	ob, err := c.openObserver(ctx, g, id)
	if err != nil {
		return err
	}
	defer ob.Close()
	// Ctrl-C ends the follow: that is how it is meant to stop.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.cancelOnInterrupt(ctx, cancel)
	events, err := ob.Engine.SubscribeSession(ctx, id, f.after)
	if err != nil {
		return err // ErrFollowAfterEnd's message names the session and its last seq
	}
	v, err := c.followView(ctx, ob, f.json)
	if err != nil {
		return err
	}
	// A TurnCompleted past the session's end when the follow began ends a
	// turn that had not ended then.
	begun := ob.Info.LastSeq
	var followErr, viewErr error
	for ev := range events {
		if p, ok := ev.Payload.(event.ErrorPayload); ok && ev.Ephemeral && p.Kind == "follow" {
			followErr = errors.New(p.Message)
		}
		if viewErr = v.event(ev); viewErr != nil {
			break
		}
		if f.untilTurnEnd && ev.Type == event.TurnCompleted && ev.ParentCallID == "" && ev.Seq > begun {
			break
		}
	}
	cancel()
	if err := v.finish(); viewErr == nil {
		viewErr = err
	}
	switch {
	case followErr != nil:
		return followErr
	case viewErr != nil:
		return fmt.Errorf(c.tr("write output: %w"), viewErr)
	}
	return nil
}

// openObserver opens the store and an engine that runs no turn, for a
// command about session id, which must be stored ("session ID not found").
func (c *cli) openObserver(ctx context.Context, g *globalFlags, id string) (*app.Observer, error) {
	o, err := c.options(g)
	if err != nil {
		return nil, err
	}
	o.SessionID = id
	ob, err := app.OpenObserver(ctx, o)
	if err != nil {
		return nil, c.notFound(id, err)
	}
	return ob, nil
}

// followView is the view of a follow: the JSON lines of run --json, or
// run's renderer with what a follower also needs to be told.
func (c *cli) followView(ctx context.Context, ob *app.Observer, asJSON bool) (view, error) {
	if asJSON {
		return newJSONView(c.stdout), nil
	}
	// The requests waiting when the follow began may still be answered:
	// their hint is shown when the stored events reach them.
	reqs, err := ob.Store.PendingApprovals(ctx, ob.Info.ID)
	if err != nil {
		return nil, c.notFound(ob.Info.ID, err)
	}
	waiting := map[string]bool{}
	for _, a := range reqs {
		waiting[a.ID] = a.Live
	}
	return &followText{r: c.newRenderer(c.stdout, c.stderr, isTerminal(c.stdout), isTerminal(c.stderr)),
		begun: ob.Info.LastSeq, waiting: waiting}, nil
}

// followText renders a followed session as run renders a turn, and shows
// what run's own user knows already: the prompts, the errors as they
// happen, how requests were resolved and how to answer them.
type followText struct {
	r *renderer
	// begun is the session's last seq when the follow began; waiting,
	// the requests then live.
	begun   uint64
	waiting map[string]bool
}

func (v *followText) event(ev event.Event) error {
	r := v.r
	switch p := ev.Payload.(type) {
	case event.WarningPayload:
		if ev.Ephemeral && p.Kind == "follower_lagged" {
			r.noteLine(i18n.Trf(r.lang, "moteur: note: %s", oneLine(p.Message, 300)), false)
			return r.err
		}
	case event.ErrorPayload:
		switch {
		case ev.Ephemeral && p.Kind == "follow":
			return r.err // the error the follow ends with, said once
		case ev.ParentCallID == "":
			// No SubmitInput here returns it: shown as it happens.
			r.noteLine("moteur: "+errorEventTextIn(r.lang, p), false)
			return r.err
		}
	case event.UserMessagePayload:
		if ev.ParentCallID == "" {
			r.userMessage(p)
			return r.err
		}
	case event.PermissionRequestedPayload:
		r.event(ev)
		if ev.Seq > v.begun || v.waiting[p.ID] {
			r.noteLine(i18n.Trf(r.lang, "moteur: answer with %s", answerCommandsIn(r.lang, p.ID)), false)
		}
		return r.err
	case event.PermissionResolvedPayload:
		r.noteLine(i18n.Trf(r.lang, "moteur: permission request %s: %s", p.ID, resolution(r.lang, p)), false)
		return r.err
	}
	return r.event(ev)
}

func (v *followText) finish() error { return v.r.finish() }

// resolution says, in language l, how a request ended.
func resolution(l i18n.Lang, p event.PermissionResolvedPayload) string {
	switch p.By {
	case "user", "":
		return verdictIn(l, replyOf(p))
	case "timeout":
		return i18n.Tr(l, "refused: no answer in time")
	case "interrupted":
		return i18n.Tr(l, "withdrawn: the process that asked had stopped")
	}
	return i18n.Trf(l, "withdrawn (%s)", p.By)
}
