package llm

import (
	"strings"
	"testing"
)

func TestValidatePairing(t *testing.T) {
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "t"})
		}
		return m
	}
	res := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id} }
	user := Message{Role: RoleUser, Content: "q"}
	for _, tc := range []struct {
		name string
		msgs []Message
		want string
	}{
		{"ok", []Message{user, call("a", "b"), res("b"), res("a"), {Role: RoleAssistant}}, ""},
		{"unanswered", []Message{user, call("a")}, "never answered"},
		{"answered twice", []Message{user, call("a"), res("a"), res("a")}, "second time"},
		{"result before call", []Message{user, res("a"), call("a")}, "no earlier message"},
		{"interleaved", []Message{user, call("a"), user, res("a")}, "before calls"},
		{"id reused", []Message{user, call("a"), res("a"), call("a"), res("a")}, "reuses call id"},
	} {
		err := ValidatePairing(tc.msgs)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: ValidatePairing = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNormalizeFinish(t *testing.T) {
	for in, want := range map[string]FinishReason{
		"stop": FinishStop, "end_turn": FinishStop, "stop_sequence": FinishStop,
		"length": FinishLength, "max_tokens": FinishLength, "max_output_tokens": FinishLength,
		"content_filter": FinishContentFilter, "tool_calls": FinishToolCalls, "": FinishUnknown, "weird": FinishUnknown,
	} {
		if got := NormalizeFinish(in); got != want {
			t.Errorf("NormalizeFinish(%q) = %q, want %q", in, got, want)
		}
	}
}
