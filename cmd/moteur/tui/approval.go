package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/moteur/moteur/event"
)

// approval is the dialog of one permission request: what the call does
// (the command, or the diff of the change), and the keys that answer it.
type approval struct {
	req  event.PermissionRequestedPayload
	body []string // the command, the diff or the arguments, one line each
	top  int      // first body line shown
	// reason is the input of a refusal's reason, after n.
	reason   textinput.Model
	inReason bool
}

var (
	styleDialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("3")).Padding(0, 1)
	styleTitle  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3"))
)

func (m *Model) newApproval(p event.PermissionRequestedPayload) *approval {
	a := &approval{req: p, reason: textinput.New()}
	a.reason.Prompt = ""
	a.reason.CharLimit = 2000
	args := m.calls[p.CallID].Arguments
	if d, ok := changeDiff(m.cfg.Root, p.Tool, args); ok {
		a.body = strings.Split(strings.TrimRight(d, "\n"), "\n")
		return a
	}
	var shell struct {
		Command string `json:"command"`
	}
	if json.Unmarshal([]byte(args), &shell) == nil && shell.Command != "" {
		a.body = strings.Split("$ "+cleanText(shell.Command), "\n")
		return a
	}
	if args != "" {
		a.body = strings.Split(cleanText(prettyJSON(args)), "\n")
	}
	return a
}

func prettyJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return s
	}
	return string(b)
}

// key answers the request, or edits the reason of a refusal.
func (a *approval) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if a.inReason {
		switch k.String() {
		case "enter":
			return m.answer(a, "n "+OneLine(a.reason.Value(), 2000), "refused")
		case "esc":
			a.inReason = false
			a.reason.Blur()
			return nil
		}
		var cmd tea.Cmd
		a.reason, cmd = a.reason.Update(k)
		return cmd
	}
	switch k.String() {
	case "y", "o":
		return m.answer(a, "y", "allowed")
	case "a", "t":
		return m.answer(a, "a", "allowed for the session")
	case "w":
		if a.req.Sandboxed {
			return m.answer(a, "w", "allowed with the network")
		}
	case "n":
		a.inReason = true
		return a.reason.Focus()
	case "up":
		a.top = max(0, a.top-1)
	case "down":
		a.top = min(max(0, len(a.body)-1), a.top+1)
	case "pgup":
		a.top = max(0, a.top-10)
	case "pgdown":
		a.top = min(max(0, len(a.body)-1), a.top+10)
	}
	return nil
}

// paste goes to the reason being typed.
func (a *approval) paste(s string) tea.Cmd {
	a.reason.SetValue(a.reason.Value() + OneLine(s, 2000))
	return nil
}

// answer gives line to the engine and closes the dialog.
func (m *Model) answer(a *approval, line, said string) tea.Cmd {
	m.approval = nil
	m.add(&block{kind: blockNote, text: fmt.Sprintf("%s: %s", OneLine(a.req.Summary, 100), fmt.Sprintf(m.tx.answered, said))})
	b, id := m.cfg.Backend, a.req.ID
	return func() tea.Msg { b.Answer(id, line); return nil }
}

// view renders the dialog in at most height lines of width cells.
func (a *approval) view(tx *texts, width, height int) string {
	inner := max(width-4, 10)
	title := styleTitle.Render(fmt.Sprintf(tx.permission, OneLine(a.req.Risk, 20)))
	head := []string{title}
	for _, l := range wrap(a.req.Summary, inner) {
		head = append(head, l)
	}
	keys := tx.approveKeys
	if a.req.Sandboxed {
		keys = tx.approveKeysNet
	}
	foot := []string{"", styleFaint.Render(ansi.Truncate(keys, inner, "…"))}
	if a.inReason {
		a.reason.SetWidth(max(inner-ansi.StringWidth(tx.reasonPrompt)-1, 5))
		foot = []string{"", tx.reasonPrompt + a.reason.View()}
	}
	room := max(height-2-len(head)-len(foot)-1, 1)
	var body []string
	if len(a.body) > 0 {
		body = append(body, "")
		end := min(len(a.body), a.top+room)
		for _, l := range a.body[a.top:end] {
			body = append(body, diffLine(ansi.Truncate(l, inner, "…")))
		}
		if rest := len(a.body) - end; rest > 0 {
			body = append(body, styleFaint.Render(fmt.Sprintf(tx.moreLines+" (↑/↓)", rest)))
		}
	}
	lines := append(append(head, body...), foot...)
	return styleDialog.Width(width).Render(strings.Join(lines, "\n"))
}

// diffLine colours a line of a unified diff.
func diffLine(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return styleUser.Render(l)
	case strings.HasPrefix(l, "@@"):
		return styleHunk.Render(l)
	case strings.HasPrefix(l, "+"):
		return styleAdd.Render(l)
	case strings.HasPrefix(l, "-"):
		return styleDel.Render(l)
	}
	return l
}
