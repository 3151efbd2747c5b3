package compaction

import "github.com/moteur/moteur/llm"

// findCut chooses where the kept tail begins: the earliest valid cut whose
// tail fits keep tokens, so that as much recent context as allowed stays
// verbatim. A cut is valid when every tool call before it is answered before
// it and it does not start on a tool result: an assistant message is never
// separated from its results. The summarised part must hold at least one
// message after start (start skips a previous summary), and the tail at least
// one message. When no valid cut fits keep, the latest valid cut is taken:
// the smallest tail the pairing rule allows. ok is false when there is no
// valid cut at all.
func (c *Compactor) findCut(msgs []llm.Message, start, keep int) (cut int, ok bool) {
	valid := validCuts(msgs)
	latest := -1
	for i := len(msgs) - 1; i > start; i-- {
		if valid[i] {
			latest = i
			break
		}
	}
	if latest < 0 {
		return 0, false
	}
	best := -1
	acc := 0
	for i := len(msgs) - 1; i > start; i-- {
		acc += c.est.Message(msgs[i])
		if acc > keep {
			break
		}
		if valid[i] {
			best = i
		}
	}
	if best < 0 {
		return latest, true
	}
	return best, true
}

// validCuts marks the indices a tail may begin at. It tolerates a history
// that breaks the pairing rule (an orphan result): such a result is simply
// not a valid start.
func validCuts(msgs []llm.Message) []bool {
	valid := make([]bool, len(msgs))
	pending := map[string]bool{}
	for i, m := range msgs {
		valid[i] = len(pending) == 0 && m.Role != llm.RoleTool
		if m.Role == llm.RoleTool {
			delete(pending, m.ToolCallID)
		}
		for _, tc := range m.ToolCalls {
			pending[tc.ID] = true
		}
	}
	return valid
}

// turnStart reports whether a cut splits a turn, and where that turn begins.
// A turn begins at a user message; a cut on one splits nothing. A cut inside
// a turn splits it: its beginning [s, cut) is summarised apart so that the
// kept end has its context. With no user message after start (the turn began
// before a previous compaction), the whole summarised part is the turn's
// beginning.
func turnStart(msgs []llm.Message, start, cut int) (s int, split bool) {
	if msgs[cut].Role == llm.RoleUser {
		return cut, false
	}
	for i := cut - 1; i >= start; i-- {
		if msgs[i].Role == llm.RoleUser {
			return i, true
		}
	}
	return start, true
}
