package engine

import (
	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// staleRetrieval is what earlier turns' knowledge-base and web results
// become in the history sent to the model (seed 000): the sources may have
// changed, so the agent searches again instead of trusting them.
const staleRetrieval = "[Previous retrieval result omitted — knowledge base may have changed. Please perform a fresh search.]"

// asSent is the history as the model reads it: retrieval results of earlier
// turns (before this turn's user message, at index current) replaced by the
// placeholder, and, when the kept tail alone is over the limit after a
// compaction, the largest tool results cut. Both are functions of the
// history alone, so a restored session sends the same messages.
func (t *turn) asSent(history []llm.Message, current int) []llm.Message {
	out := history
	copied := false
	for i, m := range history {
		if i >= current {
			break
		}
		if m.Role == llm.RoleTool && t.retrieval(m.Name) && m.Content != staleRetrieval {
			if !copied {
				out, copied = append([]llm.Message(nil), history...), true
			}
			out[i].Content = staleRetrieval
		}
	}
	if t.overBudget {
		t.compactor() // the estimator exists
		// The seed's cap (20 % of the window, at least 8192 tokens) is for
		// large windows; on a small one a result may take half of it.
		w := t.e.deps.ContextWindow
		out, _ = t.estimator().TruncateToolResults(out, min(compaction.ResultCap(w), w/2))
	}
	return out
}

// retrieval reports whether the tool of that name says its results go stale
// between turns (tools.Retrieval).
func (t *turn) retrieval(name string) bool {
	tool, ok := t.lookup(name)
	if !ok {
		return false
	}
	r, ok := tool.(tools.Retrieval)
	return ok && r.Retrieval()
}
