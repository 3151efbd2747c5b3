package llm

import "fmt"

// ValidatePairing checks the rule every chat-completions server enforces:
// each tool call of an assistant message is answered exactly once, by a tool
// message that comes after it and before the next user or assistant
// message, and call ids are unique.
func ValidatePairing(msgs []Message) error {
	pending := map[string]bool{}
	answered := map[string]bool{}
	for i, m := range msgs {
		if m.Role == RoleTool {
			if !pending[m.ToolCallID] {
				if answered[m.ToolCallID] {
					return fmt.Errorf("message %d answers call %q a second time", i, m.ToolCallID)
				}
				return fmt.Errorf("message %d answers call %q, which no earlier message made", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			answered[m.ToolCallID] = true
			continue
		}
		if len(pending) > 0 {
			return fmt.Errorf("message %d (%s) comes before calls %v are answered", i, m.Role, keys(pending))
		}
		for _, c := range m.ToolCalls {
			if pending[c.ID] || answered[c.ID] {
				return fmt.Errorf("message %d reuses call id %q", i, c.ID)
			}
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("calls %v are never answered", keys(pending))
	}
	return nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
