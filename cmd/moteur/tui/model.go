package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
)

// Timing of the interface.
const (
	tickEvery     = 100 * time.Millisecond
	stallAfter    = 5 * time.Second
	quitWindow    = 2 * time.Second
	recentEvents  = 400
	defaultWindow = 32000
)

// Config is what a chat interface shows and talks to. The zero value of
// every field but Backend is usable.
type Config struct {
	Backend   Backend
	SessionID string
	Model     string
	// ContextWindow is the model's window in tokens (0: 32000), for the
	// status line's "context filled".
	ContextWindow int
	// Root is the project root: the files write_file and edit_file name
	// are read from it to show the diff of a change.
	Root string
	Lang i18n.Lang
	// History is the project's prompts (nil: none kept).
	History *History
	// Recent are the stored events of a resumed session: its last turns
	// are shown before the prompt.
	Recent []event.Event
	// Notes are lines shown at the top (the warnings of the session's
	// opening).
	Notes []string
	// Now tells the time (nil: time.Now); tests fix it.
	Now func() time.Time
	// MarkdownStyle is the look of the answers' Markdown: "dark", "light"
	// or "ascii" (markers written out, no escape sequences); "": dark, or
	// light once the terminal says its background is light.
	MarkdownStyle string
}

// Model is the chat interface, a tea.Model.
type Model struct {
	cfg Config
	tx  *texts
	now func() time.Time

	width, height int
	editor        textarea.Model
	md            *markdown

	// history browsing: index in entries (len: the draft), and the draft.
	histIdx   int
	histDraft string
	// pastes holds the large pastes the editor shows as placeholders.
	pastes map[string]string

	blocks []*block
	// scroll is how many lines the transcript is scrolled up from its end.
	scroll int

	running    bool
	compacting bool // /compact runs
	turn       int  // the number of the last turn sent
	cancelling bool
	turnStart  time.Time
	lastEvent  time.Time
	lastCtrlC  time.Time
	tickID     int
	frame      int
	notice     string

	approval *approval
	picker   *picker
	// calls are the tool calls seen, by id: a request shows its call's arguments.
	calls map[string]llm.ToolCall

	used       usage // tokens of the chat's turns, as TurnCompleted counts them
	turnUsage  usage // tokens of the running turn's rounds so far
	contextLen int   // prompt+completion tokens of the last round: the window filled

	quitting bool
}

type usage struct{ prompt, completion int }

// New builds the interface for cfg.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ContextWindow <= 0 {
		cfg.ContextWindow = defaultWindow
	}
	style := cfg.MarkdownStyle
	if style == "" {
		style = "dark"
	}
	m := &Model{cfg: cfg, tx: textsFor(cfg.Lang), now: cfg.Now, md: &markdown{style: style},
		pastes: map[string]string{}, calls: map[string]llm.ToolCall{}, width: 80, height: 24}
	m.editor = newEditor(m.tx.placeholder)
	m.editor.Focus()
	m.histIdx = len(cfg.History.Entries())
	for _, n := range cfg.Notes {
		m.add(&block{kind: blockNote, text: n})
	}
	m.showRecent(cfg.Recent)
	m.layout()
	return m
}

// Init starts waiting for the session's events, and asks the terminal
// for its background (the Markdown's colours follow it).
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.next(), m.editor.Focus(), tea.RequestBackgroundColor)
}

func (m *Model) next() tea.Cmd {
	b := m.cfg.Backend
	if b == nil {
		return nil
	}
	return func() tea.Msg { return b.Next() }
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		if m.cfg.MarkdownStyle == "" && !msg.IsDark() {
			m.md = &markdown{style: "light"}
			for _, b := range m.blocks {
				b.dirty = true
			}
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case EventsMsg:
		for _, ev := range msg {
			m.event(ev, true)
		}
		return m, m.next()
	case TurnDoneMsg:
		m.turnDone(msg)
		return m, m.next()
	case CompactDoneMsg:
		m.compactDone(msg)
		return m, m.next()
	case tickMsg:
		if msg.id != m.tickID || !m.running && !m.compacting {
			return m, nil
		}
		m.frame++
		return m, m.tick()
	case startErrMsg:
		m.running = false
		m.add(&block{kind: blockError, text: msg.err.Error()})
		return m, nil
	case commandMsg:
		if msg.err != nil {
			m.add(&block{kind: blockError, text: msg.err.Error()})
		} else {
			m.add(&block{kind: blockNote, text: strings.TrimRight(msg.text, "\n")})
		}
		return m, nil
	case pointsMsg:
		return m, m.gotPoints(msg)
	case planMsg:
		m.gotPlan(msg)
		return m, nil
	case rewoundMsg:
		m.rewound(msg)
		return m, nil
	case tea.PasteMsg:
		if m.approval != nil && m.approval.inReason {
			return m, m.approval.paste(msg.Content)
		}
		// Into the editor, even behind a dialog: nothing pasted is lost.
		return m, m.paste(msg.Content)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	var cmd tea.Cmd
	m.editor, cmd = m.editor.Update(msg)
	return m, cmd
}

func (m *Model) tick() tea.Cmd {
	id := m.tickID
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{id: id} })
}

// key handles a key press: Ctrl-C, the dialog, scrolling, then the editor.
func (m *Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "ctrl+c":
		return m.ctrlC()
	case "ctrl+d":
		// As in a shell: on an empty line at the prompt, the end.
		if !m.running && m.approval == nil && m.picker == nil && m.editor.Value() == "" {
			return m.quit()
		}
	}
	m.notice = ""
	if m.approval != nil {
		return m, m.approval.key(m, k)
	}
	if m.picker != nil {
		return m, m.pickerKey(k)
	}
	switch k.String() {
	case "pgup":
		m.scroll += max(1, m.transcriptHeight()-1)
		return m, nil
	case "pgdown":
		m.scroll = max(0, m.scroll-max(1, m.transcriptHeight()-1))
		return m, nil
	case "enter":
		return m, m.send()
	case "up":
		if m.editor.Line() == 0 && m.historyMove(-1) {
			return m, nil
		}
	case "down":
		if m.editor.Line() == m.editor.LineCount()-1 && m.historyMove(1) {
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.editor, cmd = m.editor.Update(k)
	m.layout()
	return m, cmd
}

// ctrlC: during a turn, the first cancels it and a second within 2 s
// quits; at the prompt it clears the line, or quits on an empty one.
func (m *Model) ctrlC() (tea.Model, tea.Cmd) {
	now := m.now()
	if m.running {
		if m.cancelling && now.Sub(m.lastCtrlC) <= quitWindow {
			return m.quit()
		}
		m.cancelling, m.lastCtrlC = true, now
		m.notice = m.tx.cancelling + " · " + m.tx.againToQuit
		b, n := m.cfg.Backend, m.turn
		return m, func() tea.Msg { b.Cancel(n); return nil }
	}
	if m.approval == nil && m.editor.Value() != "" {
		m.editor.Reset()
		m.histIdx = len(m.cfg.History.Entries())
		m.layout()
		return m, nil
	}
	return m.quit()
}

func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.quitting = true
	return m, tea.Quit
}

// send runs what the editor holds: a slash command, or a turn.
func (m *Model) send() tea.Cmd {
	raw := m.editor.Value()
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	if cmd, handled := m.command(text); handled {
		return cmd
	}
	if m.running {
		m.notice = m.tx.turnRunning
		return nil
	}
	if m.compacting {
		m.notice = m.tx.compacting + "…"
		return nil
	}
	prompt := m.expandPastes(raw)
	if err := m.cfg.History.Add(raw); err != nil {
		m.notice = err.Error()
	}
	m.editor.Reset()
	m.histIdx = len(m.cfg.History.Entries())
	m.pastes = map[string]string{}
	m.layout()
	m.scroll = 0
	m.add(&block{kind: blockUser, text: raw})
	m.running, m.cancelling = true, false
	m.turnStart, m.lastEvent = m.now(), m.now()
	m.turnUsage = usage{}
	m.tickID++
	m.turn++
	b, n := m.cfg.Backend, m.turn
	return tea.Batch(m.tick(), func() tea.Msg {
		if err := b.Start(n, prompt); err != nil {
			return startErrMsg{err}
		}
		return nil
	})
}

// historyMove steps through the history; the draft being typed is kept
// at its end. It reports whether it moved.
func (m *Model) historyMove(step int) bool {
	entries := m.cfg.History.Entries()
	i := m.histIdx + step
	if i < 0 || i > len(entries) {
		return false
	}
	if m.histIdx == len(entries) {
		m.histDraft = m.editor.Value()
	}
	m.histIdx = i
	if i == len(entries) {
		m.editor.SetValue(m.histDraft)
	} else {
		m.editor.SetValue(entries[i])
	}
	m.layout()
	return true
}

func (m *Model) turnDone(msg TurnDoneMsg) {
	if msg.Err != nil {
		m.add(&block{kind: blockError, text: msg.Err.Error()})
	} else if msg.Cancelled {
		m.add(&block{kind: blockNote, text: m.tx.turnCancelled})
	}
	m.running, m.cancelling, m.approval = false, false, nil
	m.notice = ""
	m.tickID++
	m.endStreams()
	m.layout()
}

// add appends a block to the transcript.
func (m *Model) add(b *block) { m.blocks = append(m.blocks, b) }

// context is the share of the window the last round filled.
func (m *Model) context() string {
	if m.contextLen == 0 {
		return "–"
	}
	return fmt.Sprintf("%d%%", m.contextLen*100/m.cfg.ContextWindow)
}

// Quitting reports whether the user asked to quit (Ctrl-C twice, /exit).
func (m *Model) Quitting() bool { return m.quitting }
