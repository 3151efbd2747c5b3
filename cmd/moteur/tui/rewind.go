package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// picker is the /rewind dialog: the points of the session, newest first,
// and the plan of a rewind to the one chosen, conflicts included.
type picker struct {
	points  []RewindPoint
	sel     int
	planFor uint64
	plan    []string
	busy    bool // the rewind runs
}

// openRewind asks the backend for the points.
func (m *Model) openRewind() tea.Cmd {
	b := m.cfg.Backend
	return func() tea.Msg { return pointsMsg(b.RewindPoints()) }
}

func (m *Model) gotPoints(ps pointsMsg) tea.Cmd {
	if len(ps) == 0 {
		m.add(&block{kind: blockNote, text: m.tx.noPoints})
		return nil
	}
	m.picker = &picker{points: ps}
	return m.fetchPlan()
}

func (m *Model) fetchPlan() tea.Cmd {
	p := m.picker
	seq := p.points[p.sel].Seq
	p.planFor, p.plan = seq, nil
	b := m.cfg.Backend
	return func() tea.Msg {
		text, err := b.RewindPlan(seq)
		return planMsg{seq: seq, text: text, err: err}
	}
}

func (m *Model) gotPlan(msg planMsg) {
	p := m.picker
	if p == nil || p.planFor != msg.seq {
		return
	}
	text := msg.text
	if msg.err != nil {
		text = msg.err.Error()
	}
	p.plan = strings.Split(strings.TrimRight(cleanText(text), "\n"), "\n")
}

func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	if p.busy {
		return nil
	}
	switch k.String() {
	case "esc", "q":
		m.picker = nil
	case "up":
		if p.sel > 0 {
			p.sel--
			return m.fetchPlan()
		}
	case "down":
		if p.sel < len(p.points)-1 {
			p.sel++
			return m.fetchPlan()
		}
	case "enter":
		p.busy = true
		b, pt := m.cfg.Backend, p.points[p.sel]
		return func() tea.Msg {
			text, err := b.Rewind(pt.Seq)
			return rewoundMsg{prompt: pt.Prompt, text: text, err: err}
		}
	}
	return nil
}

// rewound shows what the rewind did, and puts the message it went back
// before into the editor, to be sent again or changed.
func (m *Model) rewound(msg rewoundMsg) {
	m.picker = nil
	if msg.err != nil {
		m.add(&block{kind: blockError, text: msg.err.Error()})
		return
	}
	m.add(&block{kind: blockNote, text: strings.TrimRight(msg.text, "\n")})
	if m.editor.Value() == "" {
		m.editor.SetValue(msg.prompt)
	}
}

// view renders the picker in at most height lines of width cells.
func (p *picker) view(tx *texts, now time.Time, width, height int) string {
	inner := max(width-4, 10)
	lines := []string{styleTitle.Render(tx.rewindTitle)}
	rows := min(len(p.points), max(height/3, 3))
	first := min(max(p.sel-rows/2, 0), len(p.points)-rows)
	for i := first; i < first+rows; i++ {
		pt := p.points[i]
		mark := "  "
		if i == p.sel {
			mark = "› "
		}
		l := fmt.Sprintf("%s%-5d %-12s %s", mark, pt.Seq, tx.ago(now, pt.Time), OneLine(pt.Prompt, inner))
		l = ansi.Truncate(l, inner, "…")
		if i == p.sel {
			l = styleUser.Render(l)
		}
		lines = append(lines, l)
	}
	lines = append(lines, "")
	room := max(height-2-len(lines)-2, 1)
	plan := p.plan
	if plan == nil {
		plan = []string{"…"}
	}
	for i, l := range plan {
		if i == room-1 && len(plan) > room {
			lines = append(lines, styleFaint.Render(fmt.Sprintf(tx.moreLines, len(plan)-i)))
			break
		}
		st := styleFaint
		if strings.Contains(l, "conflict") {
			st = styleError
		}
		lines = append(lines, st.Render(ansi.Truncate(l, inner, "…")))
	}
	lines = append(lines, "", styleFaint.Render(ansi.Truncate(tx.rewindKeys, inner, "…")))
	return styleDialog.Width(width).Render(strings.Join(lines, "\n"))
}

// ago says how long ago t was, in few words.
func (tx *texts) ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return tx.justNow
	case d < time.Hour:
		return fmt.Sprintf(tx.minutesAgo, int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf(tx.hoursAgo, int(d/time.Hour))
	}
	return t.UTC().Format("2006-01-02")
}
