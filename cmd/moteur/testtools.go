//go:build moteur_testtools

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/moteur/moteur/effect"

	"github.com/moteur/moteur/tools"
)

// This file is compiled only with the build tag moteur_testtools, for the
// crash test: the moteur binary never has these tools.

func init() {
	extraTools = append(extraTools, func() tools.Tool { return blockTool{} })
}

// blockTool (test_block) writes the marker file its argument names, then
// blocks until its call is cancelled: a tool call in flight, for a test to
// kill the process in the middle of.
type blockTool struct{}

func (blockTool) Name() string { return "test_block" }
func (blockTool) Description() string {
	return "Test tool: writes the marker file, then blocks until cancelled."
}
func (blockTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"marker":{"type":"string"}},"required":["marker"]}`)
}
func (blockTool) Risk() effect.Risk      { return effect.RiskWrite }
func (blockTool) Concurrent() bool       { return false }
func (blockTool) Timeout() time.Duration { return time.Hour }

func (blockTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct {
		Marker string `json:"marker"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, err
	}
	if err := os.WriteFile(a.Marker, []byte("blocked\n"), 0o600); err != nil {
		return tools.Result{}, fmt.Errorf("write marker: %w", err)
	}
	<-ctx.Done()
	return tools.Result{}, ctx.Err()
}
