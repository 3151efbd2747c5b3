package tools

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Models often quote scalars ("limit": "5", "exact": "true"), especially
// after a long string argument. A strict validator would bounce such a call
// and cost a round trip for a value whose meaning is not in doubt, so the
// registry converts them first, guided by the schema. For the same reason an
// integral number such as 2.0 is rewritten as 2 where only an integer is
// allowed: the schema accepts it, a Go int field does not.

// castKind is a set of scalar types a string may be converted to.
type castKind uint8

const (
	castBool castKind = 1 << iota
	castInt
	castNum
)

// castNode is the part of a schema that matters for casting, computed once
// at registration so that Execute walks only what can change.
type castNode struct {
	to    castKind
	props map[string]*castNode
	items *castNode
}

// buildCast returns nil when nothing in the schema can be cast, so Execute
// skips the walk entirely for string-only tools.
func buildCast(s *Schema) *castNode {
	n := buildCastNode(s.root, map[*node]*castNode{})
	if n == nil || (n.to == 0 && len(n.props) == 0 && n.items == nil) {
		return nil
	}
	return n
}

func buildCastNode(s *node, memo map[*node]*castNode) *castNode {
	s = resolveRef(s)
	if s == nil {
		return nil
	}
	if n, ok := memo[s]; ok {
		// Recursive schemas ($ref to an ancestor) share the node: the walk is
		// bounded by the value, which is finite.
		return n
	}
	n := &castNode{}
	memo[s] = n
	// A property that also accepts a string is left alone: converting it
	// would change what the model meant.
	if s.types != 0 && s.types&typeString == 0 {
		if s.types&typeBoolean != 0 {
			n.to |= castBool
		}
		if s.types&typeInteger != 0 {
			n.to |= castInt
		}
		if s.types&typeNumber != 0 {
			n.to |= castNum
		}
	}
	for _, p := range s.props {
		if c := buildCastNode(p.n, memo); c != nil {
			if n.props == nil {
				n.props = map[string]*castNode{}
			}
			n.props[p.name] = c
		}
	}
	// Tuples are not cast: their items differ by position.
	if s.items != nil && len(s.prefix) == 0 {
		n.items = buildCastNode(s.items, memo)
	}
	return n
}

// resolveRef follows a bare "$ref" to the schema that carries the types.
// The hop limit guards against a reference chain that loops.
func resolveRef(s *node) *node {
	for i := 0; s != nil && s.ref != nil && s.types == 0 && len(s.props) == 0 && i < 16; i++ {
		s = s.ref
	}
	return s
}

// cast converts, in place, the string values that n says should be scalars.
// It returns the possibly replaced value and whether anything changed.
func (n *castNode) cast(v any) (any, bool) {
	if n == nil {
		return v, false
	}
	switch v := v.(type) {
	case string:
		if n.to == 0 {
			return v, false
		}
		if c, ok := castString(v, n.to); ok {
			return c, true
		}
	case json.Number:
		// 2.0 is an integer to JSON Schema but fails a Go int field: where
		// only an integer is allowed, write it as one.
		if n.to&(castInt|castNum) == castInt && strings.ContainsAny(string(v), ".eE") {
			if c, ok := castString(string(v), castInt); ok {
				return c, true
			}
		}
	case map[string]any:
		changed := false
		for k, pv := range v {
			if pn := n.props[k]; pn != nil {
				if c, ok := pn.cast(pv); ok {
					v[k] = c
					changed = true
				}
			}
		}
		return v, changed
	case []any:
		if n.items == nil {
			return v, false
		}
		changed := false
		for i, e := range v {
			if c, ok := n.items.cast(e); ok {
				v[i] = c
				changed = true
			}
		}
		return v, changed
	}
	return v, false
}

// castString converts s to the first kind of to it parses as: boolean,
// then integer, then number. Anything that does not parse cleanly is left
// alone for the validator to report.
func castString(s string, to castKind) (any, bool) {
	t := strings.TrimSpace(s)
	if to&castBool != 0 {
		switch {
		case strings.EqualFold(t, "true"):
			return true, true
		case strings.EqualFold(t, "false"):
			return false, true
		}
	}
	if !isJSONNumber(t) {
		return nil, false
	}
	if to&castInt != 0 {
		if !strings.ContainsAny(t, ".eE") {
			return json.Number(t), true
		}
		// "3.0" or "1e3" is an integer to JSON Schema but not to a Go int
		// field, so it is rewritten in plain integer form.
		f, err := strconv.ParseFloat(t, 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.Number(strconv.FormatInt(int64(f), 10)), true
		}
	}
	if to&castNum != 0 {
		return json.Number(t), true
	}
	return nil, false
}

// isJSONNumber reports whether s is a number literal as JSON writes it, so
// that the cast value re-encodes to valid JSON ("NaN", "0x10", "1_000" and
// "+1", which strconv accepts, are refused).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}
