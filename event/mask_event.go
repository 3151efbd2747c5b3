package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/llm"
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
// inside a string literal does), and otherwise string by string, the values
// of object members named like secrets (api_key…) going whole; the
// structural form is re-encoded (members sorted). Invalid JSON is masked as
// text. Any other payload type (a pointer, a struct from elsewhere) has every
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
func maskJSONText(s string) string {
	m, kinds := MaskString(s)
	if kinds == nil || json.Valid([]byte(m)) || !json.Valid([]byte(s)) {
		return m
	}
	return string(maskJSONStructure([]byte(s), m))
}

// maskJSONBytes is maskJSONText for a json.RawMessage, copying only on
// change.
func maskJSONBytes(b []byte) []byte {
	m, kinds := MaskString(string(b))
	if kinds == nil {
		return b
	}
	if json.Valid([]byte(m)) || !json.Valid(b) {
		return []byte(m)
	}
	return maskJSONStructure(b, m)
}

// maskJSONStructure masks valid JSON value by value, for when masking it as
// text broke it (a match ran across a string's end). textMasked is the
// fallback should the structure not re-encode, which cannot happen for JSON
// that decoded.
func maskJSONStructure(b []byte, textMasked string) []byte {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // keep numbers exactly as written
	var v any
	if err := d.Decode(&v); err != nil {
		return []byte(textMasked)
	}
	v = maskJSONValue(v, "")
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(textMasked)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// maskJSONValue masks the strings of a decoded JSON value; member is the
// name of the object member holding it, so that {"api_key": "…"} keeps its
// meaning once decoded.
func maskJSONValue(v any, member string) any {
	switch x := v.(type) {
	case string:
		if member != "" {
			if kind, strong, ok := secretName(member); ok && !exemptValue(x, true, member, strong) {
				return redactedPrefix + kind + "]"
			}
		}
		m, _ := MaskString(x)
		return m
	case []any:
		for i := range x {
			x[i] = maskJSONValue(x[i], "")
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			mk, _ := MaskString(k)
			out[mk] = maskJSONValue(val, k)
		}
		return out
	}
	return v
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
