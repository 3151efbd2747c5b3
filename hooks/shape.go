package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Claude Code's tools take absolute file paths and Moteur's take paths
// relative to the project root; timeouts are milliseconds there and
// seconds here. toClaude and fromClaude translate a call's arguments
// between the two shapes. A Moteur argument Claude Code has no word for
// (work_dir, mode, max_bytes, …) is left out of the hook's view and kept
// as it was when an updatedInput comes back.

// toClaude returns Claude Code's tool name and tool_input for a call of the
// Moteur tool name with args. Arguments it cannot read are passed as they
// are, under Claude Code's name: the hook sees what the model sent.
func toClaude(name string, args json.RawMessage, root string) (string, json.RawMessage) {
	claude, _ := ClaudeToolName(name)
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return claude, args
	}
	out := map[string]any{}
	switch name {
	case "shell_exec":
		copyKey(out, "command", m, "command")
		if t, ok := m["timeout_sec"].(float64); ok {
			out["timeout"] = t * 1000
		}
	case "write_file":
		out["file_path"] = absPath(m["path"], root)
		copyKey(out, "content", m, "content")
	case "edit_file":
		out["file_path"] = absPath(m["path"], root)
		edits, _ := m["edits"].([]any)
		if len(edits) == 1 {
			claude = "Edit"
			if e, ok := edits[0].(map[string]any); ok {
				copyKey(out, "old_string", e, "old_string")
				copyKey(out, "new_string", e, "new_string")
				out["replace_all"] = e["replace_all"] == true
			}
		} else {
			claude = "MultiEdit"
			out["edits"] = m["edits"]
		}
	case "read_file":
		out["file_path"] = absPath(m["path"], root)
		copyKey(out, "offset", m, "offset")
		copyKey(out, "limit", m, "limit")
	case "grep":
		copyKey(out, "pattern", m, "pattern")
		if p, ok := m["path"].(string); ok && p != "" {
			out["path"] = absPath(p, root)
		}
		copyKey(out, "glob", m, "glob")
		copyKey(out, "head_limit", m, "max_results")
	case "glob":
		copyKey(out, "pattern", m, "pattern")
	default:
		// web_fetch, web_search and agent take Claude Code's own argument
		// names (url, prompt; query; description, prompt, subagent_type).
		return claude, args
	}
	data, _ := json.Marshal(out) // decoded JSON values: cannot fail
	return claude, data
}

// fromClaude turns an updatedInput in Claude Code's shape for a call of
// the Moteur tool name back into Moteur's arguments, over the call's
// original arguments orig (so what Claude Code cannot say is kept).
func fromClaude(name string, orig, updated json.RawMessage, root string) (json.RawMessage, error) {
	var u map[string]any
	if err := json.Unmarshal(updated, &u); err != nil || u == nil {
		return nil, fmt.Errorf("updatedInput is not a JSON object")
	}
	m := map[string]any{}
	_ = json.Unmarshal(orig, &m) // arguments the model got wrong: start empty
	if m == nil {
		m = map[string]any{}
	}
	setPath := func(key string) error {
		v, ok := u["file_path"]
		if !ok {
			return nil
		}
		p, err := relPath(v, root)
		if err != nil {
			return err
		}
		m[key] = p
		return nil
	}
	switch name {
	case "shell_exec":
		copyKey(m, "command", u, "command")
		if t, ok := u["timeout"].(float64); ok {
			m["timeout_sec"] = max(1, int((t+999)/1000))
		}
	case "write_file":
		if err := setPath("path"); err != nil {
			return nil, err
		}
		copyKey(m, "content", u, "content")
	case "edit_file":
		if err := setPath("path"); err != nil {
			return nil, err
		}
		if edits, ok := u["edits"]; ok {
			m["edits"] = edits
		} else if _, ok := u["old_string"]; ok {
			e := map[string]any{"old_string": u["old_string"], "new_string": u["new_string"]}
			if u["replace_all"] == true {
				e["replace_all"] = true
			}
			m["edits"] = []any{e}
		}
	case "read_file":
		if err := setPath("path"); err != nil {
			return nil, err
		}
		copyKey(m, "offset", u, "offset")
		copyKey(m, "limit", u, "limit")
	case "grep":
		copyKey(m, "pattern", u, "pattern")
		copyKey(m, "glob", u, "glob")
		copyKey(m, "max_results", u, "head_limit")
		if v, ok := u["path"]; ok {
			p, err := relPath(v, root)
			if err != nil {
				return nil, err
			}
			m["path"] = p
		}
	case "glob":
		copyKey(m, "pattern", u, "pattern")
		// Moteur's glob has no directory argument: a Claude Code path
		// becomes the pattern's prefix.
		if v, ok := u["path"]; ok {
			dir, err := relPath(v, root)
			if err != nil {
				return nil, err
			}
			if p, _ := m["pattern"].(string); dir != "" && dir != "." && p != "" {
				m["pattern"] = filepath.ToSlash(filepath.Join(dir, p))
			}
		}
	default:
		return updated, nil
	}
	return json.Marshal(m)
}

func copyKey(dst map[string]any, dk string, src map[string]any, sk string) {
	if v, ok := src[sk]; ok {
		dst[dk] = v
	}
}

// absPath makes a Moteur path (relative to root, or absolute) absolute, as
// Claude Code's file_path always is. A value that is not a string is
// passed as it is.
func absPath(v any, root string) any {
	p, ok := v.(string)
	if !ok || p == "" || filepath.IsAbs(p) || root == "" {
		return v
	}
	return filepath.Join(root, p)
}

// relPath makes Claude Code's absolute path relative to root when it lies
// inside. A path outside stays absolute: the file tools refuse it, as they
// would the model's.
func relPath(v any, root string) (string, error) {
	p, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("updatedInput: a path is %T, want a string", v)
	}
	if !filepath.IsAbs(p) || root == "" {
		return p, nil
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p, nil
	}
	return filepath.ToSlash(rel), nil
}
