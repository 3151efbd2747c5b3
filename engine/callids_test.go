package engine

import (
	"fmt"
	"testing"

	"github.com/moteur/moteur/llm"
)

// TestNormalizeCallIDsUnique: empty and repeated ids are replaced, the
// others kept, whether the round has a few calls (checked by scanning) or
// many (checked with a map); an id the model chose that equals a replacement
// made before it is replaced too.
func TestNormalizeCallIDsUnique(t *testing.T) {
	for _, n := range []int{4, maxScannedCalls + 5} {
		calls := make([]llm.ToolCall, n)
		for i := range calls {
			calls[i] = llm.ToolCall{ID: fmt.Sprintf("c%d", i%2), Name: "t"}
		}
		calls[0].ID = ""
		calls[n-1].ID = "call_r1_0" // what calls[0] becomes
		out := normalizeCallIDs(calls, 1)
		seen := map[string]bool{}
		for i, c := range out {
			if c.ID == "" || seen[c.ID] {
				t.Fatalf("%d calls: call %d has id %q, empty or already used", n, i, c.ID)
			}
			seen[c.ID] = true
		}
		if out[1].ID != "c1" || out[2].ID != "c0" {
			t.Errorf("%d calls: first ids of each kind changed: %q, %q", n, out[1].ID, out[2].ID)
		}
		if out[n-1].ID != fmt.Sprintf("call_r1_%d", n-1) {
			t.Errorf("%d calls: the id equal to a replacement became %q", n, out[n-1].ID)
		}
		if calls[0].ID != "" {
			t.Errorf("%d calls: the input was modified", n)
		}
	}
}
