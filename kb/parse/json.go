package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// parseJSON pretty-prints a JSON document: each element of a top-level
// array, or each member of a top-level object, becomes one paragraph so
// records are retrieved one at a time. Indentation is kept (it is the
// structure), which is why these paragraphs are not space-collapsed.
func parseJSON(data []byte) (Document, error) {
	text, warnings := DecodeText(data)
	raw := []byte(text)
	if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
		return Document{}, fmt.Errorf("%w JSON: %w", ErrCorrupt, err)
	}
	var b builder
	parts, err := jsonParts(bytes.TrimSpace(raw))
	if err != nil {
		return Document{}, fmt.Errorf("%w JSON: %w", ErrCorrupt, err)
	}
	for _, p := range parts {
		b.preformatted(p)
	}
	doc := b.document()
	doc.Warnings = warnings
	return doc, nil
}

// jsonParts splits a valid JSON value into its top-level pieces, each
// indented.
func jsonParts(raw []byte) ([]string, error) {
	switch raw[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		parts := make([]string, 0, len(elems))
		for _, e := range elems {
			parts = append(parts, indentJSON(e))
		}
		return parts, nil
	case '{':
		return objectMembers(raw)
	}
	return []string{indentJSON(raw)}, nil
}

// objectMembers renders each member as `"key": value`, in file order
// (decoding into a map would lose it).
func objectMembers(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var parts []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		k, _ := json.Marshal(key)
		parts = append(parts, string(k)+": "+indentJSON(val))
	}
	return parts, nil
}

// maxIndentDepth: deeper values are printed compact, because indented
// output grows with the square of the depth (an 18 KB "[[[[…]]]]" would
// print as 80 MB).
const maxIndentDepth = 16

func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	indent := func() error { return json.Indent(&buf, raw, "", "  ") }
	if jsonDepth(raw) > maxIndentDepth {
		indent = func() error { return json.Compact(&buf, raw) }
	}
	if err := indent(); err != nil {
		return string(raw) // already validated; keep the text if not
	}
	return buf.String()
}

// jsonDepth returns the maximum nesting of arrays and objects in raw.
func jsonDepth(raw []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// maxLineWarnings caps per-line warnings so a broken log file does not
// produce thousands of them.
const maxLineWarnings = 5

// parseJSONL reads one JSON value per line. Bad lines are skipped with a
// warning (a truncated last line is common in logs); a file with no valid
// line is corrupt.
func parseJSONL(data []byte) (Document, error) {
	text, warnings := DecodeText(data)
	var b builder
	bad, good := 0, 0
	var firstErr error
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), new(json.RawMessage)); err != nil {
			bad++
			if firstErr == nil {
				firstErr = fmt.Errorf("line %d: %w", i+1, err)
			}
			if bad <= maxLineWarnings {
				warnings = append(warnings, fmt.Sprintf("line %d: invalid JSON skipped: %v", i+1, err))
			}
			continue
		}
		good++
		b.preformatted(indentJSON([]byte(line)))
	}
	if good == 0 && bad > 0 {
		return Document{}, fmt.Errorf("%w JSONL: no valid line: %w", ErrCorrupt, firstErr)
	}
	if bad > maxLineWarnings {
		warnings = append(warnings, fmt.Sprintf("%d invalid JSON lines skipped in all", bad))
	}
	doc := b.document()
	doc.Warnings = warnings
	return doc, nil
}
