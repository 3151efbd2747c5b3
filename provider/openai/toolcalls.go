package openai

import (
	"strconv"
	"strings"

	"github.com/moteur/moteur/llm"
)

// callAssembler builds tool calls from their streamed fragments.
//
// The protocol says every fragment carries the index of its call, the first
// one also the id and name, the later ones pieces of the arguments. Servers
// stray from it, so the rules are:
//   - A fragment with an index extends the call with that index, unless it
//     brings an id different from that call's server id: then a new call has
//     begun (some servers number every call 0).
//   - A fragment without an index extends the call with the same id; without
//     an id, the call extended last (servers that stream one call at a
//     time), unless it brings a name and that call has one already; else it
//     begins a new call. Two elements of one tool_calls array never extend
//     the same call, so a whole list sent at once stays a list.
//   - A call without an id from the server gets one made up (see newID).
//
// Calls are numbered in the order they first appear, which is index order
// for every server that sends indexes; Delta.ToolCall.Index is that number.
type callAssembler struct {
	calls   []*callBuilder
	byIndex map[int]int // server index -> position in calls
	current int         // position of the call extended last, -1 before any
	// touched marks the calls extended by the tool_calls array being applied.
	touched []bool
	// newID makes up an id for the call at a position.
	newID func(pos int) string
}

type callBuilder struct {
	id, name  string
	synthetic bool // id was made up here
	args      strings.Builder
}

func newCallAssembler(newID func(pos int) string) *callAssembler {
	return &callAssembler{byIndex: map[int]int{}, current: -1, newID: newID}
}

// apply adds one tool_calls array and returns a delta per fragment.
func (a *callAssembler) apply(frags []wireToolCallFrag) []llm.ToolCallDelta {
	if len(frags) == 0 {
		return nil
	}
	clear(a.touched)
	out := make([]llm.ToolCallDelta, 0, len(frags))
	for i := range frags {
		out = append(out, a.add(&frags[i]))
	}
	return out
}

// add applies one fragment.
func (a *callAssembler) add(f *wireToolCallFrag) llm.ToolCallDelta {
	pos := a.route(f)
	c := a.calls[pos]
	a.current = pos
	a.touched[pos] = true

	d := llm.ToolCallDelta{Index: pos, Arguments: string(f.Function.Arguments)}
	if f.ID != "" && (c.id == "" || c.synthetic) && f.ID != c.id {
		c.id, c.synthetic = f.ID, false
		d.ID = c.id
	}
	if c.id == "" {
		c.id, c.synthetic = a.newID(pos), true
		d.ID = c.id
	}
	if c.name == "" && f.Function.Name != "" {
		c.name = f.Function.Name
		d.Name = c.name
	}
	c.args.WriteString(d.Arguments)
	return d
}

// route finds the position of the call a fragment belongs to, beginning a
// new call when it belongs to none.
func (a *callAssembler) route(f *wireToolCallFrag) int {
	if f.Index != nil {
		pos, ok := a.byIndex[*f.Index]
		if ok && !a.newServerID(pos, f.ID) {
			return pos
		}
		pos = a.begin()
		a.byIndex[*f.Index] = pos
		return pos
	}
	if f.ID != "" {
		for pos, c := range a.calls {
			if c.id == f.ID {
				return pos
			}
		}
		return a.begin()
	}
	if a.current >= 0 && !a.touched[a.current] && !a.renamed(a.current, f.Function.Name) {
		return a.current
	}
	return a.begin()
}

// renamed reports whether a fragment without index or id names a tool
// while the call at pos already has a name: it is then the start of the
// next call, from a server that sends whole calls without ids.
func (a *callAssembler) renamed(pos int, name string) bool {
	return name != "" && a.calls[pos].name != ""
}

// newServerID reports whether id names a call other than the one at pos.
func (a *callAssembler) newServerID(pos int, id string) bool {
	c := a.calls[pos]
	return id != "" && c.id != "" && !c.synthetic && id != c.id
}

func (a *callAssembler) begin() int {
	a.calls = append(a.calls, &callBuilder{})
	a.touched = append(a.touched, false)
	return len(a.calls) - 1
}

// result returns the calls in order. Empty arguments become "{}": a model
// calling a tool without parameters often sends nothing, and "" is not JSON
// to the engine nor to a server the call is sent back to.
func (a *callAssembler) result() []llm.ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]llm.ToolCall, len(a.calls))
	for i, c := range a.calls {
		args := c.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		out[i] = llm.ToolCall{ID: c.id, Name: c.name, Arguments: args}
	}
	return out
}

// syntheticID returns the id made up for the call at pos of a response;
// stamp tells responses apart, so that ids stay unique in a conversation.
func syntheticID(pos int, stamp string) string {
	return "call_" + strconv.Itoa(pos) + "_" + stamp
}
