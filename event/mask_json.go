package event

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/moteur/moteur/redact"
)

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
