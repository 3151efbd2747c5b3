package event

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/llm"
)

// MaskEvent returns e with every string a secret could hide in masked
// (MaskString). Payloads are values: the result holds a modified copy, and
// slices shared with the input (ToolCalls, Files) are copied before any
// change, so e itself is never altered. Which strings are secrets, and
// what masking guarantees, is package redact's account; which fields of a
// payload can hold one is said once, by the masked method beside the
// payload's type (payloads.go). The fields a method leaves are
// identifiers, names, enumerations, hashes and paths Moteur or the user
// chose (a call's id, a tool's name, a risk class, the project root): a
// test fails for a string field that is neither masked nor on its list of
// identifiers.
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
// when that finds what the text did not. Invalid JSON is masked as text.
// Any other payload (a pointer, a struct from elsewhere) has every exported
// string masked, through reflection: safe, but blind to identifiers.
func MaskEvent(e Event) Event {
	e.Payload = maskPayload(e.Payload)
	return e
}

// masker is implemented by every payload type of this version: masked
// returns the payload with the fields that may hold a secret masked. A
// method on the type itself keeps the list beside the fields, and costs one
// interface assertion per event, where the reflective walk would visit
// every field.
type masker interface {
	masked() any
}

func maskPayload(p any) any {
	switch v := p.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return json.RawMessage(maskJSONBytes(v))
	// The payloads of every round: when nothing was masked, p itself is
	// returned, which spares boxing a copy of the struct again.
	case ToolResultPayload:
		if v.mask() {
			return v
		}
		return p
	case AssistantMessagePayload:
		if v.mask() {
			return v
		}
		return p
	case UserMessagePayload:
		if v.mask() {
			return v
		}
		return p
	case masker:
		// A pointer to a payload has the method too, but would come back
		// as a value (and a nil one would panic): it goes the reflective
		// way, which keeps its type. TypeOf only reads the interface's
		// type word.
		if reflect.TypeOf(p).Kind() != reflect.Pointer {
			return v.masked()
		}
	}
	m, _ := maskReflect(reflect.ValueOf(p), 0)
	return m.Interface()
}

// maskField masks *s in place and reports whether it held a secret.
func maskField(s *string) bool {
	m, kinds := MaskString(*s)
	*s = m
	return kinds != nil
}

// maskEach returns xs with mask applied to a copy of each element, the
// slice copied on the first change so that the caller's is left alone;
// mask reports whether it changed its element.
func maskEach[T any](xs []T, mask func(*T) bool) []T {
	out := xs
	cloned := false
	for i := range xs {
		x := xs[i]
		if !mask(&x) {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(xs), true
		}
		out[i] = x
	}
	return out
}

// sameSlice reports whether a and b are the same slice (maskEach returns
// its input itself when it changed nothing).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// maskToolCalls masks the calls' arguments as JSON.
func maskToolCalls(calls []llm.ToolCall) []llm.ToolCall {
	return maskEach(calls, func(c *llm.ToolCall) bool {
		m := maskJSONText(c.Arguments)
		changed := m != c.Arguments
		c.Arguments = m
		return changed
	})
}

func maskStrings(ss []string) []string { return maskEach(ss, maskField) }

func maskRewoundFiles(files []RewoundFile) []RewoundFile {
	return maskEach(files, func(f *RewoundFile) bool { return maskField(&f.Error) })
}

// maskRefs masks what a citation shows of a document (its title, path,
// headings, base name); the ids and aliases are Moteur's own.
func maskRefs(refs []cite.Ref) []cite.Ref {
	return maskEach(refs, func(r *cite.Ref) bool {
		// Not ||: every field is masked, whichever held a secret.
		t, p, h, b := maskField(&r.Title), maskField(&r.Path), maskField(&r.Headings), maskField(&r.BaseName)
		return t || p || h || b
	})
}
