package tools

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// JSON equality as JSON Schema defines it for enum, const and uniqueItems:
// numbers are equal by value (1 equals 1.0), objects regardless of key
// order, arrays item by item. Values are what decodeJSON produces: nil,
// bool, string, json.Number, []any and map[string]any.

func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		na, oka := parseNumber(string(a))
		nb, okb := parseNumber(string(bn))
		return oka && okb && cmpNumber(na, nb) == 0
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// pairwiseUniqueLimit is the array length up to which uniqueness is
// checked by comparing pairs; longer arrays are keyed, so that a model
// sending ten thousand items costs linear time, not fifty million
// comparisons.
const pairwiseUniqueLimit = 32

// firstDuplicate returns the indexes of the first two equal items of a, or
// ok false when all differ.
func firstDuplicate(a []any) (i, j int, ok bool) {
	if len(a) <= pairwiseUniqueLimit {
		for j := 1; j < len(a); j++ {
			for i := 0; i < j; i++ {
				if jsonEqual(a[i], a[j]) {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	seen := make(map[string]int, len(a))
	var b strings.Builder
	for j, v := range a {
		b.Reset()
		canonicalJSON(&b, v)
		if i, dup := seen[b.String()]; dup {
			return i, j, true
		}
		seen[b.String()] = j
	}
	return 0, 0, false
}

// canonicalJSON writes v so that equal values, and only they, write the
// same: numbers by value, object keys sorted.
func canonicalJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteByte('n')
	case bool:
		if v {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		b.WriteByte('#')
		if n, ok := parseNumber(string(v)); ok {
			b.WriteString(canonicalNumber(n))
		} else {
			b.WriteString(string(v))
		}
	case []any:
		b.WriteByte('[')
		for _, e := range v {
			canonicalJSON(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonicalJSON(b, v[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
}
