package main

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/effect"

	"github.com/moteur/moteur/tools"
)

// writeTool (test_write) is a tool of risk write that changes nothing: it
// counts its calls and answers "written". In-process tests add it to a
// harness (withWriteTool); the moteur binary never has it.
type writeTool struct{ calls *atomic.Int32 }

func (writeTool) Name() string        { return "test_write" }
func (writeTool) Description() string { return "Test tool: pretends to write the file at path." }
func (writeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
}
func (writeTool) Risk() effect.Risk { return effect.RiskWrite }
func (writeTool) Concurrent() bool  { return false }

func (w writeTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	w.calls.Add(1)
	return tools.Result{Content: "written"}, nil
}

// withWriteTool gives h's sessions the test_write tool and returns the
// count of its runs.
func (h *harness) withWriteTool(t *testing.T) *atomic.Int32 {
	t.Helper()
	n := &atomic.Int32{}
	h.tools = append(h.tools, func() tools.Tool { return writeTool{calls: n} })
	return n
}

// writeArgs are test_write's arguments in the tests.
const writeArgs = `{"path":"notes.txt"}`
