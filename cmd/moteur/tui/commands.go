package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// command runs a slash command typed at the prompt; handled is false for
// what is not one (a prompt, or /NAME ARGS, a skill the backend runs).
func (m *Model) command(text string) (cmd tea.Cmd, handled bool) {
	if !strings.HasPrefix(text, "/") {
		return nil, false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	args = strings.TrimSpace(args)
	done := func() {
		_ = m.cfg.History.Add(text)
		m.editor.Reset()
		m.histIdx = len(m.cfg.History.Entries())
		m.scroll = 0
		m.layout()
	}
	note := func(s string) { m.add(&block{kind: blockNote, text: s}) }
	switch name {
	case "exit", "quit":
		done()
		_, cmd := m.quit()
		return cmd, true
	case "help":
		done()
		note(m.tx.help)
	case "clear":
		done()
		m.blocks = nil
		note(m.tx.cleared)
	case "session":
		done()
		note(fmt.Sprintf(m.tx.sessionLine, m.cfg.SessionID, m.modelName()))
	case "model":
		done()
		note(fmt.Sprintf(m.tx.modelLine, m.modelName(), m.cfg.ContextWindow))
	case "usage":
		done()
		u := m.used
		note(fmt.Sprintf(m.tx.usageLine, u.prompt+u.completion, u.prompt, u.completion, m.context()))
	case "compact":
		if m.running || m.compacting {
			m.notice = m.tx.compactBusy
			return nil, true
		}
		done()
		return m.compact(), true
	case "rewind":
		if m.running {
			m.notice = m.tx.turnRunning
			return nil, true
		}
		done()
		return m.openRewind(), true
	case "skills", "agents", "agent", "mcp":
		if m.running {
			m.notice = m.tx.turnRunning
			return nil, true
		}
		done()
		if name == "agent" {
			name = "agents"
		}
		b := m.cfg.Backend
		return func() tea.Msg {
			out, err := b.Command(name, args)
			return commandMsg{text: out, err: err}
		}, true
	default:
		if validSkillName(name) {
			return nil, false
		}
		m.add(&block{kind: blockError, text: fmt.Sprintf(m.tx.unknownCommand, "/"+OneLine(name, 40))})
		return nil, true
	}
	return nil, true
}

// validSkillName: what /NAME may name as a skill (lower-case letters,
// digits and hyphens); the backend checks that the skill exists.
func validSkillName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func (m *Model) modelName() string {
	if m.cfg.Model == "" {
		return m.tx.noModel
	}
	return m.cfg.Model
}
