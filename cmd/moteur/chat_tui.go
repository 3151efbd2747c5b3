package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/moteur/moteur/cmd/moteur/tui"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

// The full-screen chat (package tui) on a terminal. The interface runs the
// turns through the same runTurn and the same approvals as the line mode:
// the view that runTurn feeds passes each event to the interface, and the
// approvals ask their questions on a line reader that the interface's
// dialog writes the typed answer to, so that what an answer means, and
// what happens when the request is resolved elsewhere or times out, stays
// approvals' business.

// maxBatch bounds the events handed to the interface in one message: a
// fast stream is drawn once per batch instead of once per delta.
const maxBatch = 512

// recentStored is how many of a resumed session's last stored events the
// interface reads to show its recent turns.
const recentStored = 400

// chatTUI runs the chat of a, an open session, in the full-screen
// interface until the user quits.
func (c *cli) chatTUI(ctx context.Context, a *agent, opts ...tea.ProgramOption) error {
	b := newTUIBackend(ctx, c, a)
	defer b.close()
	m, err := c.tuiModel(ctx, a, b)
	if err != nil {
		return err
	}
	opts = append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)
	p := tea.NewProgram(m, opts...)
	_, err = p.Run()
	b.close()
	// SIGTERM (the context) and a SIGINT sent from elsewhere end the chat
	// as /exit does.
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("chat interface: %w", err)
	}
	// The screen is gone with the alternate buffer: the id stays, to
	// continue the session later.
	fmt.Fprintf(c.stderr, "session: %s\n", a.ID)
	return b.err()
}

// tuiModel is the interface for a's session: its model, its history, the
// project's prompts and the warnings of its opening.
func (c *cli) tuiModel(ctx context.Context, a *agent, b *tuiBackend) (*tui.Model, error) {
	hist, err := tui.OpenHistory(tui.HistoryPath(a.Settings.DataDir(), a.ProjectRoot()))
	if err != nil {
		return nil, err
	}
	var recent []event.Event
	if a.Resumed() {
		from := uint64(0)
		if a.LastSeq > recentStored {
			from = a.LastSeq - recentStored
		}
		if recent, err = a.Store.LoadFrom(ctx, a.ID, from); err != nil {
			return nil, fmt.Errorf("session %s: %w", a.ID, err)
		}
	}
	cfg := a.Settings.Config
	model, window := "", 0
	if len(cfg.Providers) > 0 {
		model, window = cfg.Providers[0].Model, cfg.Providers[0].ContextWindow
	}
	return tui.New(tui.Config{
		Backend: b, SessionID: a.ID, Model: model, ContextWindow: window,
		Root: a.ProjectRoot(), Lang: a.Settings.Lang, History: hist, Recent: recent,
		Notes: a.Warnings, Now: c.now,
	}), nil
}

// tuiBackend is the session as the interface sees it (tui.Backend).
type tuiBackend struct {
	ctx  context.Context
	c    *cli
	a    *agent
	msgs chan tea.Msg
	// quit is closed when the interface ends: nothing waits on it any more.
	quit     chan struct{}
	quitOnce sync.Once
	// restore puts standard error back as the notes' stream.
	restore func()

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's or compaction's; nil when none
	// compacting: what cancel ends is a compaction, which no Cancel of a
	// turn's number may end.
	compacting bool
	turnN      int // the number of the last turn started
	// cancelN is a turn cancelled before its Start came.
	cancelN int
	turn    chan struct{} // closed when the running turn is over
	asked   map[string]*askedRequest
	current *lineReader // the reader of the request being asked
	turnErr error       // an audit failure: the chat ends with it

	// pending is a message Next took while batching, for its next call.
	pending tea.Msg
}

// askedRequest is a request on screen: the reader its question reads the
// answer from, and gone, closed once it is resolved.
type askedRequest struct {
	lines *lineReader
	gone  chan struct{}
}

func newTUIBackend(ctx context.Context, c *cli, a *agent) *tuiBackend {
	b := &tuiBackend{ctx: ctx, c: c, a: a, msgs: make(chan tea.Msg, 256), quit: make(chan struct{}),
		asked: map[string]*askedRequest{}}
	// Each request gets a reader of its own: an answer typed for one can
	// never answer the next.
	a.useTerminal(func() *lineReader {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.current
	})
	// The notes (warnings, what the approvals say) would scribble over the
	// screen: they become events the interface shows.
	if lw, ok := a.stderr.(*lockedWriter); ok {
		lw.mu.Lock()
		old := lw.w
		lw.w = &noteWriter{push: b.push}
		lw.mu.Unlock()
		b.restore = func() {
			lw.mu.Lock()
			lw.w = old
			lw.mu.Unlock()
		}
	}
	return b
}

// close ends the interface's side: the running turn is cancelled and
// waited for, and the notes go to standard error again.
func (b *tuiBackend) close() {
	b.quitOnce.Do(func() {
		close(b.quit)
		b.cancelAll()
		b.mu.Lock()
		turn := b.turn
		b.mu.Unlock()
		if turn != nil {
			<-turn
		}
		if b.restore != nil {
			b.restore()
		}
	})
}

func (b *tuiBackend) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.turnErr
}

// push hands m to the interface, or drops it once the interface is gone.
func (b *tuiBackend) push(m tea.Msg) {
	select {
	case b.msgs <- m:
	case <-b.quit:
	}
}

// Start implements tui.Backend.
func (b *tuiBackend) Start(n int, prompt string) error {
	in := engine.Input{Text: prompt}
	if name, args, ok := skillCall(prompt); ok {
		if _, known := b.a.Skills().Lookup(name); !known {
			return errors.New(i18n.Trf(b.a.Settings.Lang, "unknown command or skill /%s (/help lists the commands)", oneLine(name, 40)))
		}
		var err error
		if in, err = skillInput(b.a.Session, name, args); err != nil {
			return fmt.Errorf("/%s: %w", name, err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		return errors.New(i18n.Tr(b.a.Settings.Lang, "a turn is already running"))
	}
	b.turnN = n
	if b.cancelN == n {
		// Ctrl-C came before the turn: nothing is sent.
		go b.push(tui.TurnDoneMsg{Cancelled: true})
		return nil
	}
	tctx, cancel := context.WithCancel(b.ctx)
	b.cancel, b.turn = cancel, make(chan struct{})
	go b.run(tctx, cancel, in, b.turn)
	return nil
}

func (b *tuiBackend) run(tctx context.Context, cancel context.CancelFunc, in engine.Input, done chan struct{}) {
	defer close(done)
	v := b.a.view(tuiView{b: b}, false)
	turnErr, viewErr := runTurn(tctx, b.a.Engine, b.a.events, b.a.ID, in, v)
	cancel()
	msg := tui.TurnDoneMsg{}
	switch {
	case turnErr != nil && tctx.Err() != nil && errors.Is(turnErr, tctx.Err()):
		msg.Cancelled = true
	case turnErr != nil:
		msg.Err = turnErrorIn(b.a.Settings.Lang, turnErr)
	case viewErr != nil:
		msg.Err = fmt.Errorf(i18n.Tr(b.a.Settings.Lang, "show the turn: %w"), viewErr)
	}
	b.mu.Lock()
	b.cancel = nil
	if errors.Is(turnErr, engine.ErrAuditFailure) {
		b.turnErr = turnErr
	}
	b.mu.Unlock()
	b.push(msg)
}

// Cancel implements tui.Backend.
func (b *tuiBackend) Cancel(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case n == b.turnN && b.cancel != nil && !b.compacting:
		b.cancel()
	case n > b.turnN:
		b.cancelN = n
	}
}

// cancelAll cancels the running turn, whichever it is.
func (b *tuiBackend) cancelAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		b.cancel()
	}
}

// Next implements tui.Backend: the next message, with the events already
// waiting behind it joined into one batch.
func (b *tuiBackend) Next() tea.Msg {
	m := b.pending
	b.pending = nil
	if m == nil {
		select {
		case m = <-b.msgs:
		case <-b.quit:
			return nil
		}
	}
	batch, ok := m.(tui.EventsMsg)
	if !ok {
		return m
	}
	for len(batch) < maxBatch {
		select {
		case next := <-b.msgs:
			evs, ok := next.(tui.EventsMsg)
			if !ok {
				b.pending = next
				return batch
			}
			batch = append(batch, evs...)
		default:
			return batch
		}
	}
	return batch
}

// Answer implements tui.Backend: line goes to the question of request id,
// unless the request was resolved meanwhile.
func (b *tuiBackend) Answer(id, line string) {
	b.mu.Lock()
	r := b.asked[id]
	b.mu.Unlock()
	if r == nil {
		return
	}
	select {
	case r.lines.lines <- line:
	case <-r.gone:
	case <-b.quit:
	}
}

// Command implements tui.Backend: the listings of the line mode's
// commands, written to a buffer.
func (b *tuiBackend) Command(name, args string) (string, error) {
	var buf bytes.Buffer
	cc := *b.c
	cc.stdout, cc.stderr = &buf, &buf
	var err error
	switch name {
	case "skills":
		err = cc.printSkills(b.a.Skills().List(), false)
	case "agents":
		err = cc.printAgents(b.a.Settings)
	case "mcp":
		rep, lerr := b.a.Settings.ListMCP(b.ctx)
		if lerr != nil {
			return "", appError(lerr)
		}
		cc.printMCP(rep)
	default:
		err = fmt.Errorf("unknown command /%s", name)
	}
	return buf.String(), err
}

// RewindPoints implements tui.Backend.
func (b *tuiBackend) RewindPoints() []tui.RewindPoint {
	var out []tui.RewindPoint
	for _, p := range b.a.Engine.RewindPoints(b.a.ID) {
		out = append(out, tui.RewindPoint{Seq: p.Seq, Prompt: p.Prompt, Time: p.Time})
	}
	// Newest first, as moteur sessions points lists them.
	slices.SortFunc(out, func(x, y tui.RewindPoint) int { return cmp.Compare(y.Seq, x.Seq) })
	return out
}

// RewindPlan implements tui.Backend: the plan as moteur sessions rewind
// --dry-run shows it.
func (b *tuiBackend) RewindPlan(seq uint64) (string, error) {
	eng, id := b.a.Engine, b.a.ID
	prompt, ok := pointPrompt(eng, id, seq)
	if !ok {
		return "", notAPointError(id, seq)
	}
	plan, err := eng.RewindPlan(id, seq)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err = writePlanIn(&buf, b.a.Settings.Lang, id, b.a.ProjectRoot(), engine.RewindBoth, plan, prompt, nil)
	return buf.String(), err
}

// Rewind implements tui.Backend: the conversation and the files, those in
// conflict left alone (moteur sessions rewind --overwrite forces them).
func (b *tuiBackend) Rewind(seq uint64) (string, error) {
	eng, id := b.a.Engine, b.a.ID
	plan, err := eng.RewindPlan(id, seq)
	if err != nil {
		return "", err
	}
	res, err := eng.Rewind(b.ctx, id, seq, engine.RewindBoth, plan, nil)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	fmt.Fprintln(&buf, i18n.Trf(b.a.Settings.Lang, "rewound to seq %d", seq))
	err = writeRewindResultIn(&buf, b.a.Settings.Lang, plan, res)
	return buf.String(), err
}

// Compact implements tui.Backend: the compaction runs as a turn does in
// the backend (Start refuses beside it, close cancels it and waits for
// it), its events shown as a turn's.
func (b *tuiBackend) Compact() {
	b.mu.Lock()
	if b.cancel != nil {
		b.mu.Unlock()
		b.push(tui.CompactDoneMsg{Busy: true})
		return
	}
	cctx, cancel := context.WithCancel(b.ctx)
	done := make(chan struct{})
	b.cancel, b.turn, b.compacting = cancel, done, true
	b.mu.Unlock()
	defer close(done)
	stop, pumped := make(chan struct{}), make(chan error, 1)
	go func() { pumped <- pump(b.a.events, stop, b.a.view(tuiView{b: b}, false)) }()
	_, err := b.a.Engine.Compact(cctx, b.a.ID)
	close(stop)
	<-pumped
	cancel()
	b.mu.Lock()
	b.cancel, b.compacting = nil, false
	if errors.Is(err, engine.ErrAuditFailure) {
		b.turnErr = err
	}
	b.mu.Unlock()
	msg := tui.CompactDoneMsg{}
	switch {
	case errors.Is(err, engine.ErrNothingToCompact):
		msg.Nothing = true
	case errors.Is(err, engine.ErrTurnInProgress):
		msg.Busy = true
	case err != nil:
		msg.Err = turnErrorIn(b.a.Settings.Lang, err)
	}
	b.push(msg)
}

// tuiView passes a turn's events to the interface, and keeps a reader for
// each request asked, for Answer.
type tuiView struct{ b *tuiBackend }

func (v tuiView) event(ev event.Event) error {
	b := v.b
	switch p := ev.Payload.(type) {
	case event.PermissionRequestedPayload:
		r := &askedRequest{lines: &lineReader{lines: make(chan string), done: make(chan struct{})}, gone: make(chan struct{})}
		b.mu.Lock()
		b.asked[p.ID], b.current = r, r.lines
		b.mu.Unlock()
	case event.PermissionResolvedPayload:
		b.forget(p.ID)
	}
	b.push(tui.EventsMsg{ev})
	return nil
}

func (v tuiView) finish() error {
	b := v.b
	b.mu.Lock()
	ids := make([]string, 0, len(b.asked))
	for id := range b.asked {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.forget(id)
	}
	return nil
}

func (b *tuiBackend) forget(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.asked[id]; r != nil {
		close(r.gone)
		delete(b.asked, id)
	}
}

// noteWriter turns the lines written to standard error during the chat
// ("moteur: warning: …", what the approvals say) into Warning events the
// interface shows; the approvals' question itself, which the dialog
// replaces, is dropped.
// notePrefix starts the lines of notes on standard error.
const notePrefix = "moteur: "

type noteWriter struct {
	push func(tea.Msg)
	buf  []byte
}

func (w *noteWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		// A question answered here is left without its end of line: the
		// next note follows it on the same line.
		if j := strings.Index(line, notePrefix); j >= 0 {
			msg := strings.TrimPrefix(line[j+len(notePrefix):], "warning: ")
			w.push(tui.EventsMsg{{Type: event.Warning, Payload: event.WarningPayload{Message: msg}}})
		}
	}
	// The question is written without a newline until it is answered.
	if len(w.buf) > 64<<10 {
		w.buf = w.buf[:0]
	}
	return len(p), nil
}
