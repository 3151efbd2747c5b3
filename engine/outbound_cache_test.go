package engine

import (
	"testing"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
)

// newCheckTurn is a turn whose engine's Outbound refuses the marking
// "PROJET ALPHA" to remote destinations.
func newCheckTurn(t *testing.T) *turn {
	t.Helper()
	cl, err := classify.New(classify.Rules{Markings: []string{"PROJET ALPHA"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := policy.NewOutbound(policy.OutboundConfig{Classifier: cl})
	if err != nil {
		t.Fatal(err)
	}
	return &turn{e: &Engine{outbound: out}}
}

var remote = policy.Destination{Provider: "remote", Endpoint: "https://api.example.test"}

// TestCheckOutboundSkipsOnlyWhatItRead: once a request passed, the next
// one's repeated messages are not classified again, but a marking in a
// message that follows them is refused with the full check's own refusal
// (the same message index), and a repeated message whose text changed is
// read again.
func TestCheckOutboundSkipsOnlyWhatItRead(t *testing.T) {
	tr := newCheckTurn(t)
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "bonjour"}}
	if err := tr.checkOutbound(remote, msgs); err != nil {
		t.Fatalf("clean request refused: %v", err)
	}
	if got := tr.cleanPrefix(msgs); got != 2 {
		t.Fatalf("clean prefix %d after a passing check, want 2", got)
	}

	next := append(msgs[:2:2], llm.Message{Role: llm.RoleTool, Content: "le PROJET ALPHA avance"})
	err := tr.checkOutbound(remote, next)
	want := tr.e.outbound.Check(remote, next)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("marking after the clean prefix: %v, want the full check's %v", err, want)
	}

	changed := []llm.Message{msgs[0], {Role: llm.RoleUser, Content: "PROJET ALPHA"}}
	if got := tr.cleanPrefix(changed); got != 1 {
		t.Fatalf("clean prefix %d with message 1 changed, want 1", got)
	}
	if err := tr.checkOutbound(remote, changed); err == nil {
		t.Fatal("a repeated message whose text changed to a marking was not refused")
	}

	// A local destination reads nothing: it proves nothing for a remote one.
	fresh := newCheckTurn(t)
	if err := fresh.checkOutbound(policy.Destination{Provider: "local", Local: true}, changed); err != nil {
		t.Fatalf("local destination refused: %v", err)
	}
	if got := fresh.cleanPrefix(changed); got != 0 {
		t.Fatalf("clean prefix %d after a local check, want 0", got)
	}
	if err := fresh.checkOutbound(remote, changed); err == nil {
		t.Fatal("remote send after a local one was not refused")
	}
}
