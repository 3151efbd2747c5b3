package compaction

import (
	"fmt"
	"unicode/utf8"

	"github.com/moteur/moteur/llm"
)

// Per-result cap of TruncateToolResults: a fifth of the window, so that a few
// large outputs still fit, within bounds that keep a useful amount of output
// on small windows and stop one result from eating a large one.
const (
	resultShare     = 0.20
	minResultTokens = 8192
	maxResultTokens = 32768
)

// ResultCap returns the per-result token cap for a window.
func ResultCap(window int) int {
	return min(maxResultTokens, max(minResultTokens, int(float64(window)*resultShare)))
}

// truncateText shortens s to about limit tokens, keeping its head and its
// tail (errors and summaries tend to be at the end of an output) around a
// note of what was cut. It counts s once and cuts by the bytes-per-token
// ratio, then checks, because a BPE prefix search would cost a count per
// probe. It reports whether s was cut.
func (e *Estimator) truncateText(s string, limit int) (string, bool) {
	total := e.Text(s)
	if total <= limit || limit <= 0 {
		return s, false
	}
	keep := float64(limit) - 16 // room for the note
	for range 4 {
		if keep < 1 {
			keep = 1
		}
		perToken := float64(len(s)) / float64(total)
		head := runeStart(s, int(keep*2/3*perToken))
		tail := runeStart(s, len(s)-int(keep/3*perToken))
		if tail < head {
			tail = head
		}
		out := s[:head] + fmt.Sprintf("\n[… %d tokens omitted …]\n", total-int(keep)) + s[tail:]
		if e.Text(out) <= limit {
			return out, true
		}
		keep *= 0.8
	}
	return fmt.Sprintf("[… %d tokens omitted …]", total), true
}

// runeStart moves i back to the start of a UTF-8 sequence, within [0, len(s)].
func runeStart(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// TruncateToolResults returns a copy of msgs in which every tool result over
// limit tokens is cut to it, and how many were cut. msgs is not modified.
//
// It is a request-time view, not a history edit: the engine applies it to the
// messages it sends when a compacted history still exceeds the budget, and
// keeps the history itself intact. Because it is a pure function of the
// history, it needs no event: replaying the history and applying it again
// gives the same request, and Restore's [summary] + old[Replaced:] stays
// exact.
func (e *Estimator) TruncateToolResults(msgs []llm.Message, limit int) ([]llm.Message, int) {
	var out []llm.Message
	n := 0
	for i, m := range msgs {
		if m.Role != llm.RoleTool {
			continue
		}
		cut, ok := e.truncateText(m.Content, limit)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		out[i].Content = cut
		n++
	}
	if out == nil {
		return msgs, 0
	}
	return out, n
}
