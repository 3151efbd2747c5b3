package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// emptySchema stands for a tool that declares no parameters: providers
// require an object schema even then.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// maxValidationLines bounds the error list sent back to the model: past a
// dozen, more detail only costs tokens.
const maxValidationLines = 12

// compileSchema checks raw and compiles it. It returns the compacted bytes
// that Definitions sends, so that formatting differences in a tool's source
// never change the payload.
func compileSchema(raw json.RawMessage) (*Schema, json.RawMessage, error) {
	compact, err := compactSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	doc, err := decodeJSON(string(compact))
	if err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		// true/false are valid JSON Schemas but not valid function parameters.
		return nil, nil, fmt.Errorf("schema must be a JSON object, got %s", jsonKind(doc))
	}
	if t, ok := obj["type"].(string); ok && t != "object" {
		return nil, nil, fmt.Errorf(`schema "type" must be "object", got %q`, t)
	}
	s, err := compileDoc(doc)
	if err != nil {
		return nil, nil, err
	}
	return s, compact, nil
}

// compactSchema is raw without insignificant whitespace; no schema at all
// is emptySchema.
func compactSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = emptySchema
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	return compact.Bytes(), nil
}

// validationMessage is the list of an invalid call's faults, one line
// each ("- at '/count': got string, want integer"), without repeats and
// cut after maxValidationLines.
func validationMessage(err error) string {
	var ae *ArgumentsError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	return bulletList(ae.Lines)
}

// bulletList writes lines as a list, dropping repeats (a value failing
// through two references is one fault) and eliding past
// maxValidationLines.
func bulletList(lines []string) string {
	var b strings.Builder
	seen := make(map[string]bool, len(lines))
	n := 0
	for i, l := range lines {
		if seen[l] {
			continue
		}
		seen[l] = true
		if n == maxValidationLines {
			rest := 0
			for _, m := range lines[i:] {
				if !seen[m] {
					rest++
					seen[m] = true
				}
			}
			fmt.Fprintf(&b, "\n- … and %d more", rest+1)
			break
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		b.WriteString(l)
		n++
	}
	return b.String()
}

// jsonKind names the JSON type of a decoded value for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
