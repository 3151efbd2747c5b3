package agents

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/moteur/moteur/frontmatter"
	"github.com/moteur/moteur/strictyaml"
)

// MaxNameLen bounds an agent's name, as for skills.
const MaxNameLen = 64

// notApplied are Claude Code's keys Moteur keeps but does not apply, with
// why; any other key but the ones parsed and "color" is reported as
// unknown (a misspelt "tools" would otherwise pass silently with every
// tool of the parent).
var notApplied = map[string]string{
	"permissionMode": "a sub-agent keeps its parent's permission mode and rules",
	"hooks":          "hooks come from the configuration files, not from an agent file",
	"mcpServers":     "a sub-agent uses its parent's MCP servers",
	"skills":         "a sub-agent sees the skills its parent sees",
	"maxTurns":       "a sub-agent has its parent's round limit",
	"memory":         "Moteur has no per-agent memory",
	"effort":         "a sub-agent has its parent's reasoning effort",
	"background":     "sub-agents run while their parent waits",
	"isolation":      "sub-agents work in the parent's project",
	"disabled":       "remove or rename the file to disable an agent",
}

// silent are keys kept without a report: they change nothing.
var silent = map[string]bool{"name": true, "description": true, "tools": true, "disallowedTools": true, "model": true, "color": true}

// parser reads agent files against one Config.
type parser struct {
	cfg    Config
	tools  map[string]bool // nil: not checked
	models map[string]bool
}

func newParser(cfg Config) *parser {
	p := &parser{cfg: cfg, models: set(cfg.Models)}
	if cfg.Tools != nil {
		p.tools = set(cfg.Tools)
	}
	return p
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// parse reads one file. ok is false when the file gives no agent; the
// errors say why, or what was left out of a kept agent.
func (p *parser) parse(path string, data []byte) (a Agent, errs []error, ok bool) {
	doc, err := frontmatter.Parse(data)
	if err != nil {
		fe := &FileError{Path: path, Err: err, Skipped: true}
		var se *strictyaml.Error
		if errors.As(err, &se) {
			fe.Line, fe.Detail = se.Line, se.Msg
		}
		return Agent{}, []error{fe}, false
	}
	r := &report{path: path, header: header(data)}
	a = Agent{Source: path, Line: doc.BodyLine, Prompt: strings.TrimSpace(doc.Body)}
	a.Name = r.str(doc.Fields, "name", ErrNoName)
	a.Description = strings.TrimSpace(r.str(doc.Fields, "description", ErrNoDescription))
	if r.skip {
		return Agent{}, r.errs, false
	}
	if !validName(a.Name) {
		r.add("name", ErrBadName, true, fmt.Sprintf("name %q: use 1 to %d lowercase letters, digits and hyphens, not starting or ending with a hyphen", a.Name, MaxNameLen))
		return Agent{}, r.errs, false
	}
	if a.Description == "" {
		r.add("description", ErrNoDescription, true, "description is empty: it tells the model when to use the agent")
		return Agent{}, r.errs, false
	}
	if v, has := doc.Fields["tools"]; has {
		a.Tools = p.toolList(r, "tools", v)
		if a.Tools == nil {
			a.Tools = []string{} // present: an allowlist, however empty
		}
	}
	if v, has := doc.Fields["disallowedTools"]; has {
		a.Denied = p.toolList(r, "disallowedTools", v)
	}
	a.Model = p.model(r, doc.Fields)
	if r.skip {
		return Agent{}, r.errs, false
	}
	a.Extra = extra(r, doc.Fields)
	return a, r.errs, true
}

// extra keeps the keys Moteur does not read, reporting those that would
// change behaviour.
func extra(r *report, fields map[string]any) map[string]any {
	var out map[string]any
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "name" || k == "description" || k == "tools" || k == "disallowedTools" || k == "model" {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = fields[k]
		if silent[k] {
			continue
		}
		if why, known := notApplied[k]; known {
			r.add(k, ErrIgnoredKey, false, fmt.Sprintf("%s is kept but not applied: %s", k, why))
		} else if strings.Contains(strings.ToLower(k), "tool") {
			r.add(k, ErrIgnoredKey, false, fmt.Sprintf("unknown key %q, ignored: did you mean tools? Without tools the agent gets every tool of its parent", k))
		} else {
			r.add(k, ErrIgnoredKey, false, fmt.Sprintf("unknown key %q, kept and ignored (is it misspelt?)", k))
		}
	}
	return out
}

// model reads `model:`: "" and "inherit" are the parent's; a name not
// configured is reported and replaced by the parent's.
func (p *parser) model(r *report, fields map[string]any) string {
	v, has := fields["model"]
	if !has || v == nil {
		return ""
	}
	m, isStr := v.(string)
	if !isStr {
		r.add("model", ErrBadField, true, fmt.Sprintf("model must be a string, not %s", kind(v)))
		return ""
	}
	m = strings.TrimSpace(m)
	if m == "" || m == "inherit" {
		return ""
	}
	if !p.models[m] {
		r.add("model", ErrUnknownModel, false, fmt.Sprintf("model %q is not configured (models: %s): the agent runs on its parent's model", m, names(p.cfg.Models)))
		return ""
	}
	return m
}

// report gathers one file's errors.
type report struct {
	path   string
	header [][]byte // the front matter's lines, for line numbers
	errs   []error
	skip   bool
}

func (r *report) add(key string, err error, skip bool, detail string) {
	r.errs = append(r.errs, &FileError{Path: r.path, Line: r.line(key), Key: key, Err: err, Detail: detail, Skipped: skip})
	r.skip = r.skip || skip
}

// str reads a required string field.
func (r *report) str(fields map[string]any, key string, missing error) string {
	v, has := fields[key]
	if !has || v == nil {
		r.add(key, missing, true, fmt.Sprintf("the front matter has no %s (name and description are required)", key))
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.add(key, ErrBadField, true, fmt.Sprintf("%s must be a string, not %s", key, kind(v)))
		return ""
	}
	return s
}

// line is the file line of key in the front matter (top-level keys only),
// 0 when not found.
func (r *report) line(key string) int {
	if key == "" {
		return 0
	}
	prefix := []byte(key + ":")
	for i, l := range r.header {
		if bytes.HasPrefix(l, prefix) {
			return i + 2 // the header starts at line 2
		}
	}
	return 0
}

// header returns the lines between the opening "---" and the next one.
func header(data []byte) [][]byte {
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) < 2 {
		return nil
	}
	var out [][]byte
	for _, l := range lines[1:] {
		if string(bytes.TrimRight(l, " \t\r")) == "---" {
			break
		}
		out = append(out, l)
	}
	return out
}

func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func kind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

func names(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
