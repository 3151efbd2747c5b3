package engine

import (
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
)

// cleanMessage is what the classification check read of one message it
// found clean: the same text, calls and origin are clean again.
type cleanMessage struct {
	content string
	calls   []llm.ToolCall
	remote  bool
}

// checkOutbound is Outbound.Check for one send of the turn. Every round's
// request repeats the history before it, and classifying all of it again
// each round made the check grow with the square of the turn's length: the
// leading messages the last passing check already read are not classified
// again, only what follows them. A refusal is always the full check's own,
// so it names the same message and rule. A local destination proves
// nothing (Check reads no message for it) and is not remembered.
func (t *turn) checkOutbound(dst policy.Destination, msgs []llm.Message) error {
	k := 0
	if !dst.Local {
		k = t.cleanPrefix(msgs)
	}
	err := t.e.outbound.Check(dst, msgs[k:])
	if err != nil && k > 0 {
		err = t.e.outbound.Check(dst, msgs)
	}
	if err == nil && !dst.Local {
		// The first k are already those of msgs: only what follows them
		// is added.
		t.clean = t.clean[:k]
		for _, m := range msgs[k:] {
			t.clean = append(t.clean, cleanMessage{content: m.Content, calls: m.ToolCalls, remote: m.Remote})
		}
	}
	return err
}

// cleanPrefix is how many leading messages of msgs the last passing check
// read as they are now. Strings compare at once when they share their
// bytes, as the history's do from one request to the next.
func (t *turn) cleanPrefix(msgs []llm.Message) int {
	n := min(len(msgs), len(t.clean))
	for i := range n {
		c, m := &t.clean[i], &msgs[i]
		if c.remote != m.Remote || c.content != m.Content || !sameCalls(c.calls, m.ToolCalls) {
			return i
		}
	}
	return n
}

// sameCalls reports whether a and b hold the same calls: the same slice,
// or equal elements.
func sameCalls(a, b []llm.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
