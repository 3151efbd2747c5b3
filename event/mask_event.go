package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/redact"
)

// MaskEvent returns e with every string a secret could hide in masked
// (MaskString). Payloads are values: the result holds a modified copy, and
// slices shared with the input (ToolCalls, Files) are copied before any
// change, so e itself is never altered.
//
// Masked: UserMessage Text, Typed, HookContext; AssistantMessage Text,
// Reasoning and each ToolCall's Arguments; ToolResult Content;
// ProviderRetry Error; TurnCompleted Answer; Error Message; the deltas'
// Text; PermissionRequested Summary; ContextCompacted Summary, HookContext;
// ProviderSelected Reason; McpServerDown Error; HookCompleted Output;
// Rewound Prompt, Note and each file's Error.
//
// Left as they are, being identifiers, names, enumerations, hashes or
// paths: SessionStarted (provider, model, project root, the paths of the
// instruction files, tool names, language); UserMessage Skill, SkillSHA256;
// ToolCall ID and Name; AssistantMessage Finish, Provider, Model;
// ToolResult CallID, Name, Display (a rendering hint), Risk; TurnCompleted
// Reason; Error Kind; PermissionRequested ID, CallID, Tool, Risk;
// ContextCompacted Reason; SessionClassified Marking, Source;
// ProviderSelected Provider, Model; McpServerDown Name; hooks' Hook and
// Event; Rewound Mode and each file's Path and Status.
//
// Text that is JSON (ToolCall.Arguments, and the json.RawMessage payload of
// a type this version does not know) stays valid JSON: it is masked as text
// when that keeps it valid (markers hold no quote nor backslash, so a match
// inside a string literal does; \u escapes are decoded by the rules, so
// "sk-proj-\u0041…" goes, escapes and all), and otherwise string by string,
// the values of object members named like secrets (api_key…) going whole.
// JSON with escapes is also masked string by string once decoded, JSON held
// in its strings too, so that a secret escaped twice (a JSON document in a
// string) is found; the structural form is re-encoded (members sorted) only
// when that finds what the text did not. Invalid JSON is masked as text. Any other payload type (a pointer, a struct from elsewhere) has every
// exported string masked, through reflection.
func MaskEvent(e Event) Event {
	e.Payload, _ = maskPayload(e.Payload)
	return e
}

// maskPayload masks a payload; explicit reports whether its type has a
// case of its own (the reflective fallback masks every string, which is safe
// but blind to which fields are identifiers: a test requires an explicit
// case for every payload type of the specs).
func maskPayload(p any) (out any, explicit bool) {
	switch v := p.(type) {
	case nil:
		return nil, true
	case SessionStartedPayload:
		return v, true
	case UserMessagePayload:
		maskField(&v.Text)
		maskField(&v.Typed)
		maskField(&v.HookContext)
		return v, true
	case AssistantMessagePayload:
		maskField(&v.Text)
		maskField(&v.Reasoning)
		v.ToolCalls = maskToolCalls(v.ToolCalls)
		v.Citations = maskRefs(v.Citations)
		return v, true
	case ToolResultPayload:
		maskField(&v.Content)
		v.References = maskRefs(v.References)
		return v, true
	case KnowledgeRetrievedPayload:
		maskField(&v.Query)
		maskField(&v.Hint)
		v.Fallbacks = slices.Clone(v.Fallbacks)
		for i := range v.Fallbacks {
			maskField(&v.Fallbacks[i])
		}
		v.References = maskRefs(v.References)
		return v, true
	case ProviderRetryPayload:
		maskField(&v.Error)
		return v, true
	case TurnCompletedPayload:
		maskField(&v.Answer)
		return v, true
	case ErrorPayload:
		maskField(&v.Message)
		return v, true
	case DeltaPayload:
		maskField(&v.Text)
		return v, true
	case PermissionRequestedPayload:
		maskField(&v.Summary)
		return v, true
	case PermissionResolvedPayload:
		maskField(&v.Reason)
		return v, true
	case WarningPayload:
		maskField(&v.Message)
		return v, true
	case ContextCompactedPayload:
		maskField(&v.Summary)
		maskField(&v.HookContext)
		return v, true
	case SessionClassifiedPayload:
		return v, true
	case ProviderSelectedPayload:
		maskField(&v.Reason)
		return v, true
	case McpServerDownPayload:
		maskField(&v.Error)
		return v, true
	case HookStartedPayload:
		return v, true
	case HookCompletedPayload:
		maskField(&v.Output)
		return v, true
	case RewoundPayload:
		maskField(&v.Prompt)
		maskField(&v.Note)
		v.Files = maskRewoundFiles(v.Files)
		return v, true
	case json.RawMessage:
		return json.RawMessage(maskJSONBytes(v)), true
	}
	m, _ := maskReflect(reflect.ValueOf(p), 0)
	return m.Interface(), false
}

func maskField(s *string) { *s, _ = MaskString(*s) }

// maskToolCalls returns calls with their arguments masked, copied on the
// first change so that the caller's slice is left alone.
func maskToolCalls(calls []llm.ToolCall) []llm.ToolCall {
	out := calls
	cloned := false
	for i, c := range calls {
		m := maskJSONText(c.Arguments)
		if m == c.Arguments {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(calls), true
		}
		out[i].Arguments = m
	}
	return out
}

func maskRewoundFiles(files []RewoundFile) []RewoundFile {
	out := files
	cloned := false
	for i, f := range files {
		m, kinds := MaskString(f.Error)
		if kinds == nil {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(files), true
		}
		out[i].Error = m
	}
	return out
}

// maskJSONText masks text that may be JSON, keeping valid JSON valid.
func maskJSONText(s string) string { return maskJSON(s, 0) }

// maskJSONBytes is maskJSONText for a json.RawMessage, copying only on
// change.
func maskJSONBytes(b []byte) []byte {
	m := maskJSON(string(b), 0)
	if m == string(b) {
		return b
	}
	return []byte(m)
}

// maxJSONDepth bounds how deep JSON held in JSON strings is decoded.
const maxJSONDepth = 4

// maskJSON masks s as text; when s is JSON with escapes, it also masks its
// strings decoded, where an escape can no longer hide a secret from the
// rules (a string holding JSON, whose own escapes are escaped once more;
// a secret spelled in \u escapes inside it). The structural form is
// re-encoded only when that found something the text masking did not.
func maskJSON(s string, depth int) string {
	m, kinds := MaskString(s)
	if kinds != nil && !json.Valid([]byte(m)) {
		if !json.Valid([]byte(s)) {
			return m // not JSON: text it is
		}
		// A match ran across a string's end: mask value by value.
		if out, ok := maskJSONStructure(s, depth); ok {
			return out
		}
		return m
	}
	if depth < maxJSONDepth && strings.IndexByte(m, '\\') >= 0 && json.Valid([]byte(m)) {
		if out, ok := maskJSONStructure(m, depth); ok {
			return out
		}
	}
	return m
}

// maskJSONStructure masks valid JSON value by value and re-encodes it
// (members sorted, numbers kept as written); ok is false when no value
// changed, and the caller keeps its text.
func maskJSONStructure(s string, depth int) (string, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", false
	}
	v, changed := maskJSONValue(v, "", depth)
	if !changed {
		return "", false
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(out.String(), "\n"), true
}

// maskJSONValue masks the strings of a decoded JSON value and reports
// whether one changed; member is the name of the object member holding
// it, so that {"api_key": "…"} keeps its meaning once decoded. A string
// that is itself JSON is masked as JSON.
func maskJSONValue(v any, member string, depth int) (any, bool) {
	switch x := v.(type) {
	case string:
		if marker, ok := redact.Member(member, x); ok {
			return marker, true
		}
		var m string
		if t := strings.TrimSpace(x); t != "" && (t[0] == '{' || t[0] == '[') {
			m = maskJSON(x, depth+1)
		} else {
			m, _ = MaskString(x)
		}
		return m, m != x
	case []any:
		changed := false
		for i := range x {
			var ch bool
			x[i], ch = maskJSONValue(x[i], "", depth)
			changed = changed || ch
		}
		return x, changed
	case map[string]any:
		out := make(map[string]any, len(x))
		changed := false
		for k, val := range x {
			mk, kinds := MaskString(k)
			mv, ch := maskJSONValue(val, k, depth)
			out[mk] = mv
			changed = changed || ch || kinds != nil
		}
		return out, changed
	}
	return v, false
}

// maskReflect returns a masked copy of v when one of its strings held a
// secret (changed), v itself otherwise. Unexported fields are copied as they
// are; depth bounds a cyclic structure.
func maskReflect(v reflect.Value, depth int) (out reflect.Value, changed bool) {
	if !v.IsValid() || depth > 32 {
		return v, false
	}
	switch v.Kind() {
	case reflect.String:
		m, kinds := MaskString(v.String())
		if kinds == nil {
			return v, false
		}
		return reflect.ValueOf(m).Convert(v.Type()), true
	case reflect.Struct:
		var cp reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			m, ch := maskReflect(v.Field(i), depth+1)
			if !ch {
				continue
			}
			if !cp.IsValid() {
				cp = reflect.New(v.Type()).Elem()
				cp.Set(v)
			}
			cp.Field(i).Set(m)
		}
		if cp.IsValid() {
			return cp, true
		}
		return v, false
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			b := v.Bytes()
			m := maskJSONBytes(b)
			if len(m) == len(b) && (len(b) == 0 || &m[0] == &b[0]) {
				return v, false
			}
			return reflect.ValueOf(json.RawMessage(m)), true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v, false // bytes: not text
		}
		return maskElems(v, depth, func() reflect.Value {
			cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(cp, v)
			return cp
		})
	case reflect.Array:
		return maskElems(v, depth, func() reflect.Value {
			cp := reflect.New(v.Type()).Elem()
			cp.Set(v)
			return cp
		})
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		var cp reflect.Value
		it := v.MapRange()
		for it.Next() {
			if _, ch := maskReflect(it.Value(), depth+1); ch {
				cp = reflect.MakeMapWithSize(v.Type(), v.Len())
				break
			}
		}
		if !cp.IsValid() {
			return v, false
		}
		it = v.MapRange()
		for it.Next() {
			m, _ := maskReflect(it.Value(), depth+1)
			cp.SetMapIndex(it.Key(), m)
		}
		return cp, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		m, ch := maskReflect(v.Elem(), depth+1)
		if !ch {
			return v, false
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(m)
		return p, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		m, ch := maskReflect(v.Elem(), depth+1)
		if !ch {
			return v, false
		}
		cp := reflect.New(v.Type()).Elem()
		cp.Set(m)
		return cp, true
	}
	return v, false
}

// maskElems masks the elements of a slice or array, copying it (with
// clone) only when an element changes: the input is never mutated.
func maskElems(v reflect.Value, depth int, clone func() reflect.Value) (reflect.Value, bool) {
	var cp reflect.Value
	for i := range v.Len() {
		m, ch := maskReflect(v.Index(i), depth+1)
		if !ch {
			continue
		}
		if !cp.IsValid() {
			cp = clone()
		}
		cp.Index(i).Set(m)
	}
	if cp.IsValid() {
		return cp, true
	}
	return v, false
}

// maskRefs masks what a citation shows of a document (its title, path,
// headings, base name); the ids and aliases are Moteur's own. The slice is
// copied: the caller's stays as it was.
func maskRefs(refs []cite.Ref) []cite.Ref {
	if refs == nil {
		return nil
	}
	out := make([]cite.Ref, len(refs))
	for i, r := range refs {
		maskField(&r.Title)
		maskField(&r.Path)
		maskField(&r.Headings)
		maskField(&r.BaseName)
		out[i] = r
	}
	return out
}
