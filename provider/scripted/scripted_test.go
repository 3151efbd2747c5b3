package scripted

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

func TestReplaysStepsInOrderAndRecordsRequests(t *testing.T) {
	p := New(Config{Steps: []Step{Text("un deux trois"), Call("c1", "t", `{"a":1}`)}})
	var text strings.Builder
	r1, err := p.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q1"}}},
		func(d llm.Delta) { text.WriteString(d.Text) })
	if err != nil || r1.Text != "un deux trois" || r1.Finish != llm.FinishStop || text.String() != r1.Text {
		t.Fatalf("first = %+v, %v (streamed %q)", r1, err, text.String())
	}
	r2, err := p.Stream(context.Background(), llm.Request{}, nil)
	if err != nil || len(r2.ToolCalls) != 1 || r2.Finish != llm.FinishToolCalls {
		t.Fatalf("second = %+v, %v", r2, err)
	}
	_, err = p.Stream(context.Background(), llm.Request{}, nil)
	if !errors.Is(err, ErrExhausted) || provider.IsTransient(err) {
		t.Fatalf("third = %v, want a permanent ErrExhausted", err)
	}
	reqs := p.Requests()
	if len(reqs) != 3 || reqs[0].Messages[0].Content != "q1" || p.Remaining() != 0 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestStallAndDelayEndWithTheContext(t *testing.T) {
	for _, s := range []Step{{Stall: true}, {Delay: 1 << 62}, {Await: make(chan struct{})}} {
		p := New(Config{Steps: []Step{s}})
		ctx, cancel := context.WithCancel(context.Background())
		reached := make(chan struct{})
		p.steps[0].Reached = reached
		go func() { <-reached; cancel() }()
		if _, err := p.Stream(ctx, llm.Request{}, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%v: err = %v, want context.Canceled", s, err)
		}
	}
}

func TestFailReturnsClassifiedError(t *testing.T) {
	p := New(Config{Steps: []Step{Fail(provider.Transient, 429, "slow down")}})
	_, err := p.Stream(context.Background(), llm.Request{}, nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Status != 429 || !provider.IsTransient(err) {
		t.Errorf("err = %v", err)
	}
}
