package hooks

import (
	"testing"
)

func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		``, `plain`, `{}`, `{"continue":false,"stopReason":"x"}`, `{"decision":"block","reason":"r"}`,
		`{"hookSpecificOutput":{"permissionDecision":"deny","updatedInput":{"a":1}}}`, `{"decision": `,
		`{"hookSpecificOutput":{"updatedInput":[1]}}`, `{"continue":"no"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ParseOutput(data)
		if err != nil && o != nil {
			t.Fatal("an error with an output")
		}
		if o == nil {
			return
		}
		for _, ev := range events {
			v, res := interpret(ev, Hook{Source: "f"}, procResult{stdout: data})
			if v.block && v.reason == "" {
				t.Fatalf("%s: a block without a reason", ev)
			}
			if v.decision != "" && ev != PreToolUse {
				t.Fatalf("%s: a permission decision", ev)
			}
			_ = res
		}
	})
}
