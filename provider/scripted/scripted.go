// Package scripted is a deterministic provider for tests and demos: it
// replays a list of responses (text, reasoning, tool calls, finish reason,
// usage, an error, a delay, a stall) in order, and records every request it
// receives so tests can check what the engine sent.
//
// A Provider is safe for concurrent use; responses are handed out in the
// order requests arrive.
package scripted

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// Step is one scripted response.
type Step struct {
	Text      string
	Reasoning string
	ToolCalls []llm.ToolCall
	// Finish is the finish reason; zero means tool_calls when ToolCalls is
	// set, stop otherwise.
	Finish llm.FinishReason
	Usage  *llm.Usage
	// Err is returned instead of a response (after any deltas of the step).
	Err error
	// Delay waits before answering; a cancelled context ends the wait.
	Delay time.Duration
	// Stall streams the text then blocks until the context ends, as a
	// server that stops sending would.
	Stall bool
	// Await, when set, is received from before answering: tests use it to
	// hold a response until they are ready.
	Await <-chan struct{}
	// Reached, when set, is closed as soon as the request for this step
	// arrives, before any Await or Delay: tests learn that the engine got
	// this far.
	Reached chan struct{}
}

// ErrExhausted is returned once every step has been used.
var ErrExhausted = errors.New("scripted provider: no more responses")

// Config configures a scripted provider.
type Config struct {
	// Name defaults to "scripted", Model to "scripted-1".
	Name, Model string
	Steps       []Step
	// Endpoint pretends the provider sends to this URL, so that tests can
	// exercise the checks made before a send ("" : in-process).
	Endpoint string
	// Local pretends the provider runs on this machine.
	Local bool
}

// Provider replays Steps.
type Provider struct {
	name, model string
	endpoint    string
	local       bool

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []llm.Request
}

// New returns a provider that replays cfg.Steps.
func New(cfg Config) *Provider {
	p := &Provider{name: cfg.Name, model: cfg.Model, steps: cfg.Steps, endpoint: cfg.Endpoint, local: cfg.Local}
	if p.name == "" {
		p.name = "scripted"
	}
	if p.model == "" {
		p.model = "scripted-1"
	}
	return p
}

// Name implements provider.Provider.
func (p *Provider) Name() string { return p.name }

// Model implements provider.Provider.
func (p *Provider) Model() string { return p.model }

// Endpoint is the URL the provider pretends to send to.
func (p *Provider) Endpoint() string { return p.endpoint }

// Local reports whether the provider pretends to run on this machine.
func (p *Provider) Local() bool { return p.local }

// Requests returns a copy of every request received so far.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]llm.Request, len(p.requests))
	for i, r := range p.requests {
		r.Messages = append([]llm.Message(nil), r.Messages...)
		r.Tools = append([]llm.ToolDef(nil), r.Tools...)
		out[i] = r
	}
	return out
}

// Remaining reports how many steps are left.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps) - p.next
}

func (p *Provider) take(req llm.Request) (Step, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	req.Messages = append([]llm.Message(nil), req.Messages...)
	p.requests = append(p.requests, req)
	if p.next >= len(p.steps) {
		return Step{}, false
	}
	s := p.steps[p.next]
	p.next++
	return s, true
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	s, ok := p.take(req)
	if !ok {
		return llm.Response{}, &provider.Error{Provider: p.name, Kind: provider.Permanent, Message: ErrExhausted.Error(), Err: ErrExhausted}
	}
	if s.Reached != nil {
		close(s.Reached)
	}
	if err := wait(ctx, s); err != nil {
		return llm.Response{}, err
	}
	emit(s, onDelta)
	if s.Stall {
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	if s.Err != nil {
		return llm.Response{}, s.Err
	}
	return p.response(s), nil
}

func wait(ctx context.Context, s Step) error {
	if s.Await != nil {
		select {
		case <-s.Await:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.Delay > 0 {
		t := time.NewTimer(s.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// emit streams the step word by word, as a server would.
func emit(s Step, onDelta func(llm.Delta)) {
	if onDelta == nil {
		return
	}
	onDelta(llm.Delta{})
	for _, w := range words(s.Reasoning) {
		onDelta(llm.Delta{Reasoning: w})
	}
	for _, w := range words(s.Text) {
		onDelta(llm.Delta{Text: w})
	}
	for i, c := range s.ToolCalls {
		onDelta(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: c.Arguments}})
	}
}

// words splits s into pieces that concatenate back to s.
func words(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s[1:], ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func (p *Provider) response(s Step) llm.Response {
	r := llm.Response{Text: s.Text, Reasoning: s.Reasoning, Finish: s.Finish, Usage: s.Usage, Model: p.model}
	r.ToolCalls = append([]llm.ToolCall(nil), s.ToolCalls...)
	if r.Finish == llm.FinishUnknown {
		r.Finish = llm.FinishStop
		if len(s.ToolCalls) > 0 {
			r.Finish = llm.FinishToolCalls
		}
	}
	r.RawFinish = string(r.Finish)
	return r
}

// Text is a step that answers text and stops.
func Text(s string) Step { return Step{Text: s} }

// Call is a step that calls one tool with JSON arguments.
func Call(id, name, args string) Step {
	return Step{ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: args}}}
}

// Fail is a step that fails with a classified provider error.
func Fail(kind provider.Kind, status int, msg string) Step {
	return Step{Err: &provider.Error{Provider: "scripted", Kind: kind, Status: status, Message: msg}}
}

var _ provider.Provider = (*Provider)(nil)

func (s Step) String() string {
	return fmt.Sprintf("step{text=%q calls=%d err=%v}", s.Text, len(s.ToolCalls), s.Err)
}
