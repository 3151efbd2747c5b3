package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The smallest terminal the layout fits.
const (
	minWidth  = 20
	minHeight = 5
)

var (
	spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	styleStatus   = lipgloss.NewStyle().Reverse(true)
	styleRule     = lipgloss.NewStyle().Faint(true)
)

// layout fits the editor to the window.
func (m *Model) layout() {
	m.editor.SetWidth(max(m.width, minWidth))
}

func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

// View implements tea.Model: the full-screen frame.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "moteur chat"
	return v
}

// Render is the frame as text (with styles), exactly height lines.
func (m *Model) Render() string {
	if m.tooSmall() {
		return ansi.Wrap(fmt.Sprintf(m.tx.tooSmall, minWidth, minHeight), max(m.width, 1), "")
	}
	var bottom []string
	switch {
	case m.approval != nil:
		dialog := m.approval.view(m.tx, m.width, max(m.height-5, 6))
		bottom = append(bottom, strings.Split(dialog, "\n")...)
	case m.picker != nil:
		dialog := m.picker.view(m.tx, m.now(), m.width, max(m.height-3, 6))
		bottom = append(bottom, strings.Split(dialog, "\n")...)
	default:
		bottom = append(bottom, styleRule.Render(strings.Repeat("─", m.width)))
		bottom = append(bottom, strings.Split(m.editor.View(), "\n")...)
	}
	bottom = append(bottom, m.statusLine())
	th := max(m.height-len(bottom), 0)
	top := m.transcript(th)
	frame := append(top, bottom...)
	if len(frame) > m.height {
		frame = frame[len(frame)-m.height:]
	}
	return strings.Join(frame, "\n")
}

// transcriptHeight is the rows the transcript gets with the editor shown.
func (m *Model) transcriptHeight() int {
	return max(m.height-m.editor.Height()-2, 1)
}

// transcript is the last height lines of the transcript (scrolled up by
// m.scroll), padded to height.
func (m *Model) transcript(height int) []string {
	if height == 0 {
		return nil
	}
	need := height + m.scroll
	now := m.now()
	var rev [][]string
	n := 0
	for i := len(m.blocks) - 1; i >= 0 && n < need+1; i-- {
		ls := m.blocks[i].lines(m.width, m.md, now, m.tx)
		rev = append(rev, ls)
		n += len(ls)
	}
	all := make([]string, 0, n)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
	}
	// Scrolled past the top: stop at the top.
	scroll := min(m.scroll, max(len(all)-height, 0))
	m.scroll = scroll
	end := len(all) - scroll
	start := max(end-height, 0)
	out := make([]string, 0, height)
	out = append(out, all[start:end]...)
	if scroll > 0 && len(out) > 0 {
		out[len(out)-1] = styleFaint.Render(fmt.Sprintf(m.tx.scrollHint, scroll))
	}
	for len(out) < height {
		out = append([]string{""}, out...)
	}
	return out
}

// statusLine: on the left what is going on (the spinner and the time the
// turn has run, a stalled model, a notice), on the right the model, the
// session, the tokens used and the context filled.
func (m *Model) statusLine() string {
	var left string
	now := m.now()
	switch {
	case m.notice != "":
		left = m.notice
	case m.running && now.Sub(m.lastEvent) >= stallAfter:
		left = spinnerFrames[m.frame%len(spinnerFrames)] + " " + fmt.Sprintf(m.tx.stalled, seconds(now.Sub(m.lastEvent)))
	case m.running:
		left = spinnerFrames[m.frame%len(spinnerFrames)] + " " + m.tx.waiting + " " + seconds(now.Sub(m.turnStart))
	case m.compacting:
		left = spinnerFrames[m.frame%len(spinnerFrames)] + " " + m.tx.compacting + " " + seconds(now.Sub(m.turnStart))
	}
	u := m.used
	u.prompt += m.turnUsage.prompt
	u.completion += m.turnUsage.completion
	right := fmt.Sprintf("%s · %s · %s tok · ctx %s", m.modelName(), m.cfg.SessionID, count(u.prompt+u.completion), m.context())
	w := m.width
	if ansi.StringWidth(left)+ansi.StringWidth(right)+3 > w {
		// The left side is what matters now; the right one gives way.
		right = ansi.Truncate(right, max(w-ansi.StringWidth(left)-3, 0), "…")
		left = ansi.Truncate(left, w-2, "…")
	}
	pad := max(w-ansi.StringWidth(left)-ansi.StringWidth(right)-2, 1)
	return styleStatus.Render(ansi.Truncate(" "+left+strings.Repeat(" ", pad)+right+" ", w, ""))
}

// count says a number of tokens in few characters: 950, 12.3k, 1.2M.
func count(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
