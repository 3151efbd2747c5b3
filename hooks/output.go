package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// maxContext bounds the context one hook adds, as Claude Code bounds
// additionalContext: a runaway script must not fill the model's window.
const maxContext = 10000

// maxShown bounds Result.Output, what HookCompleted records.
const maxShown = 8192

// Output is a hook's JSON on stdout, with Claude Code's field names.
type Output struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	SuppressOutput     bool            `json:"suppressOutput"`
	SystemMessage      string          `json:"systemMessage"`
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason"`
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput"`
}

// SpecificOutput is hookSpecificOutput.
type SpecificOutput struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	AdditionalContext        string          `json:"additionalContext"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
}

// ParseOutput reads a hook's stdout. Output that does not start with "{"
// (after blanks) is plain text: nil, nil. Output that does but is not a
// valid object of the expected shape is an error, and the caller treats it
// as plain text, as Claude Code does.
func ParseOutput(stdout []byte) (*Output, error) {
	t := bytes.TrimSpace(stdout)
	if len(t) == 0 || t[0] != '{' {
		return nil, nil
	}
	var o Output
	if err := json.Unmarshal(t, &o); err != nil {
		return nil, fmt.Errorf("stdout is not valid hook JSON (used as plain text): %w", err)
	}
	if s := o.HookSpecificOutput; s != nil {
		switch s.PermissionDecision {
		case "", "allow", "deny", "ask":
		default:
			return nil, fmt.Errorf("hookSpecificOutput.permissionDecision %q: want allow, deny or ask", s.PermissionDecision)
		}
		if len(s.UpdatedInput) > 0 && !bytes.HasPrefix(bytes.TrimSpace(s.UpdatedInput), []byte("{")) &&
			string(bytes.TrimSpace(s.UpdatedInput)) != "null" {
			return nil, fmt.Errorf("hookSpecificOutput.updatedInput must be an object")
		}
	}
	switch o.Decision {
	case "", "block", "approve", "allow", "deny":
	default:
		return nil, fmt.Errorf("decision %q: want block or approve", o.Decision)
	}
	return &o, nil
}

// verdict is what one hook decided.
type verdict struct {
	block    bool
	reason   string
	context  string
	decision string // "allow", "ask", "deny" or ""
	updated  json.RawMessage
	stop     bool
	stopMsg  string
}

// canBlock: events where exit 2 or decision "block" refuses something or,
// for Stop, sends the agent back to work. On the others Claude Code only
// shows stderr to the user.
func canBlock(ev Event) bool {
	switch ev {
	case PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop:
		return true
	}
	return false
}

// takesPlainContext: events whose plain stdout (exit 0) is context for
// the model.
func takesPlainContext(ev Event) bool { return ev == UserPromptSubmit || ev == SessionStart }

// interpret turns one finished hook into its verdict and Result.
func interpret(ev Event, h Hook, r procResult) (verdict, Result) {
	res := Result{ExitCode: r.exit}
	if r.err != nil {
		res.Err = fmt.Errorf("%s: %w", h.Source, r.err)
	}
	var v verdict
	if r.exit == -1 {
		return v, res // not run to an exit: reported, ignored
	}
	stdout, stderr := string(r.stdout), strings.TrimSpace(string(r.stderr))
	switch r.exit {
	case 0:
	case 2:
		// stderr is the feedback; stdout and its JSON are ignored.
		res.Output = cut(stderr, maxShown)
		if canBlock(ev) {
			v.block, v.reason = true, orDefault(stderr, "blocked by hook "+h.Name)
			if ev == PreToolUse {
				v.decision = "deny"
			}
			res.Blocked = true
		}
		return v, res
	default:
		res.Output = cut(orDefault(stderr, stdout), maxShown)
		res.Err = joinErr(res.Err, fmt.Errorf("%s: exit status %d (ignored)%s", h.Source, r.exit, firstLine(stderr)))
		return v, res
	}
	o, err := ParseOutput(r.stdout)
	if err != nil {
		res.Err = joinErr(res.Err, fmt.Errorf("%s: %w", h.Source, err))
	}
	if o == nil {
		res.Output = cut(stdout, maxShown)
		if takesPlainContext(ev) {
			v.context = cut(strings.TrimSpace(stdout), maxContext)
		}
		return v, res
	}
	if !o.SuppressOutput {
		res.Output = cut(stdout, maxShown)
	}
	applyJSON(ev, o, &v)
	res.Blocked = v.block
	return v, res
}

func applyJSON(ev Event, o *Output, v *verdict) {
	defer func() {
		if v.block && v.reason == "" {
			v.reason = "blocked by a hook"
		}
	}()
	if o.Continue != nil && !*o.Continue {
		v.stop, v.stopMsg = true, o.StopReason
	}
	if canBlock(ev) {
		switch o.Decision {
		case "block", "deny":
			v.block, v.reason = true, o.Reason
			if ev == PreToolUse {
				v.decision = "deny"
			}
		case "approve", "allow":
			if ev == PreToolUse {
				v.decision, v.reason = "allow", o.Reason
			}
		}
	}
	s := o.HookSpecificOutput
	if s == nil {
		return
	}
	if ev == PreToolUse && s.PermissionDecision != "" {
		// hookSpecificOutput wins over the older top-level decision.
		v.decision, v.reason = s.PermissionDecision, s.PermissionDecisionReason
		v.block = s.PermissionDecision == "deny"
	}
	if ev == PreToolUse && len(s.UpdatedInput) > 0 && string(bytes.TrimSpace(s.UpdatedInput)) != "null" {
		v.updated = s.UpdatedInput
	}
	switch ev {
	case UserPromptSubmit, SessionStart, PostToolUse:
		v.context = cut(strings.TrimSpace(s.AdditionalContext), maxContext)
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Back to a rune boundary.
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "\n[… cut]"
}

func firstLine(s string) string {
	if s == "" {
		return ""
	}
	l, _, _ := strings.Cut(s, "\n")
	return ": " + cut(l, 300)
}

func joinErr(a, b error) error {
	if a == nil {
		return b
	}
	return fmt.Errorf("%w; %w", a, b)
}
