package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kaptinlin/jsonrepair"
)

// The repairer's cost grows with the square of its input on degenerate text
// (a model looping on "[{" or on unterminated strings): measured with
// jsonrepair v0.2.15, 64 KiB of "[{" takes 8 s and 64 KiB of `"a` 1 s, and
// a megabyte would take minutes. A depth bound removes the nesting cases and
// a size bound keeps the others under about half a second; arguments that
// large and that broken are better rewritten by the model than guessed at.
const (
	maxRepairBytes = 32 << 10
	maxRepairDepth = 64
)

// parseArgs decodes the model's argument text into an object. Numbers are
// kept as json.Number so that large integers survive and the validator sees
// the model's exact literal. It reports whether the text had to be repaired,
// since repaired text cannot be passed on verbatim.
func parseArgs(text string) (map[string]any, bool, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		// Models call parameterless tools with "" as often as with "{}".
		return map[string]any{}, false, nil
	}
	repaired := false
	v, err := decodeJSON(text)
	if err != nil {
		fixed, rerr := repair(text)
		if rerr != nil {
			return nil, false, fmt.Errorf("arguments are not valid JSON (%v) and could not be repaired: %w", err, rerr)
		}
		v, err = decodeJSON(fixed)
		if err != nil {
			return nil, false, fmt.Errorf("arguments are not valid JSON, even after repair: %w", err)
		}
		repaired = true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
	}
	return obj, repaired, nil
}

// decodeJSON decodes one JSON value, numbers as json.Number, and refuses
// anything after it.
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// repair runs jsonrepair on text. The repairer is a hand-written parser fed
// with whatever the model produced; a bug in it must cost one call, not the
// engine.
func repair(text string) (out string, err error) {
	if len(text) > maxRepairBytes {
		return "", fmt.Errorf("%d bytes is too large to repair (limit %d)", len(text), maxRepairBytes)
	}
	if nestingDepth(text) > maxRepairDepth {
		return "", fmt.Errorf("nested more than %d levels deep", maxRepairDepth)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("repair failed: %v", p)
		}
	}()
	out, err = jsonrepair.Repair(text)
	var re *jsonrepair.Error
	if errors.As(err, &re) {
		// The library's message repeats its cause; position is what helps.
		err = fmt.Errorf("%s at position %d", re.Message, re.Position)
	}
	return out, err
}

// nestingDepth returns the deepest bracket nesting of text, not counting
// brackets inside double-quoted strings. It is a cheap upper bound for what
// the repairer will face, not a parser.
func nestingDepth(text string) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}
