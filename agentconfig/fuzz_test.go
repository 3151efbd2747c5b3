package agentconfig

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Any JSON an API client sends: decoding, EnsureDefaults and Validate never
// panic, and EnsureDefaults is idempotent.
func FuzzConfigJSON(f *testing.F) {
	f.Add(`{"agent_mode":"smart-reasoning","sandbox_config_id":"s","max_completion_tokens":10}`)
	f.Add(`{"allowed_tools":[],"max_iterations":-4,"temperature":-1}`)
	f.Add(`{"reasoning_effort":"xhigh","thinking":true,"kb_selection_mode":"selected","knowledge_bases":["a","a"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		var c CustomAgentConfig
		if json.Unmarshal([]byte(s), &c) != nil {
			return
		}
		c.EnsureDefaults()
		_ = c.Validate()
		again := c.Clone()
		again.EnsureDefaults()
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("not idempotent: %+v / %+v", c, again)
		}
		if n := c.EffectiveMaxIterations(); n < 1 || n > MaxIterationsCap {
			t.Fatalf("iterations %d", n)
		}
	})
}
