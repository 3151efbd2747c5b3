package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

// BenchmarkRenderStream streams a 2,000-line answer, one line a delta, and
// draws a frame after each: the frames per second the interface sustains
// while an answer streams (the program draws at most 60 a second).
func BenchmarkRenderStream(b *testing.B) {
	const lines = 2000
	deltas := make([]EventsMsg, lines)
	for i := range deltas {
		deltas[i] = EventsMsg{{Type: event.AssistantDelta, Ephemeral: true,
			Payload: event.DeltaPayload{Text: fmt.Sprintf("line %d of the answer, with some **words** to wrap at the window's width\n", i), Round: 1}}}
	}
	ck := newClock()
	newModel := func() *Model {
		m := New(Config{Backend: &fakeBackend{}, SessionID: "s-bench", Model: "m", Lang: i18n.EN, Now: ck.now, MarkdownStyle: "ascii"})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		m.running = true
		return m
	}
	m := newModel()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if i%lines == 0 && i > 0 {
			b.StopTimer()
			m = newModel()
			b.StartTimer()
		}
		m.Update(deltas[i%lines])
		_ = m.Render()
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "frames/s")
}

// BenchmarkStartup is the chat's start-up to the first frame of its prompt
// (without the session's opening, which app measures).
func BenchmarkStartup(b *testing.B) {
	for range b.N {
		m := New(Config{Backend: &fakeBackend{}, SessionID: "s-bench", Model: "m", Lang: i18n.EN})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		_ = m.Render()
	}
}

// BenchmarkMarkdownAnswer renders a finished 2,000-line answer as
// Markdown: the pause at the end of a long answer's stream.
func BenchmarkMarkdownAnswer(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %d of the answer, with some **words** and `code` to wrap at the window's width\n\n", i)
	}
	text := sb.String()
	md := &markdown{style: "dark"}
	for b.Loop() {
		_ = md.render(text, 100)
	}
}
