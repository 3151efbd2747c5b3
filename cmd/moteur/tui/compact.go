package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// compact starts the compaction /compact asks for: the spinner runs until
// its CompactDoneMsg; its ContextCompacted event, shown as any other,
// says what it freed.
func (m *Model) compact() tea.Cmd {
	m.compacting = true
	m.turnStart, m.lastEvent = m.now(), m.now()
	m.tickID++
	b := m.cfg.Backend
	return tea.Batch(m.tick(), func() tea.Msg { b.Compact(); return nil })
}

// compactDone ends the spinner and says why nothing was compacted, when
// nothing was.
func (m *Model) compactDone(msg CompactDoneMsg) {
	m.compacting, m.notice = false, ""
	m.tickID++
	switch {
	case msg.Busy:
		m.add(&block{kind: blockError, text: m.tx.compactBusy})
	case msg.Nothing:
		m.add(&block{kind: blockNote, text: m.tx.nothingToComp})
	case msg.Err != nil:
		m.add(&block{kind: blockError, text: fmt.Sprintf(m.tx.compactFailed, OneLine(msg.Err.Error(), 2000))})
	}
}
