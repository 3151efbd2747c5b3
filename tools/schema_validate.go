package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxValidationDepth bounds the recursion of one validation. The
// compiler refuses reference cycles that never descend into the value, so
// the walk is already bounded by the value's depth; this guards that
// reasoning and an absurdly deep value alike.
const maxValidationDepth = 10000

// ArgumentsError lists every way a value fails its schema, one line each
// ("at '/count': minimum: got 0, want 1").
type ArgumentsError struct {
	Lines []string
}

func (e *ArgumentsError) Error() string { return bulletList(e.Lines) }

// Validate reports every fault of v, which is what decodeJSON produces
// (numbers as json.Number), against s. It is safe for concurrent use.
func (s *Schema) Validate(v any) error {
	var vd validator
	vd.walk(s.root, v, nil)
	if len(vd.errs) == 0 {
		return nil
	}
	return &ArgumentsError{Lines: vd.errs}
}

// valuePath is the location of a value being validated, kept as a chain
// on the stack and written out only for a message.
type valuePath struct {
	parent *valuePath
	key    string
	index  int // when key is "" and isIndex
	isItem bool
}

func (p *valuePath) String() string {
	if p == nil {
		return ""
	}
	var parts []string
	for q := p; q != nil; q = q.parent {
		if q.isItem {
			parts = append(parts, strconv.Itoa(q.index))
		} else {
			parts = append(parts, pointerToken(q.key))
		}
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

// at names a location for a message; the root reads better named.
func at(p *valuePath) string {
	if p == nil {
		return "at root"
	}
	return "at '" + p.String() + "'"
}

type validator struct {
	errs  []string
	depth int
}

func (vd *validator) fail(p *valuePath, format string, args ...any) {
	vd.errs = append(vd.errs, at(p)+": "+fmt.Sprintf(format, args...))
}

func (vd *validator) walk(n *node, v any, p *valuePath) {
	if n == nil {
		return
	}
	if vd.depth >= maxValidationDepth {
		vd.fail(p, "nested too deep to validate (more than %d levels)", maxValidationDepth)
		return
	}
	vd.depth++
	defer func() { vd.depth-- }()
	if n.never {
		vd.fail(p, "no value is allowed here (false schema)")
		return
	}
	if n.ref != nil {
		vd.walk(n.ref, v, p)
	}
	if n.types != 0 && !n.types.has(v) {
		vd.fail(p, "got %s, want %s", jsonKind(v), n.typeWant)
		// The other keywords would only repeat the type error.
		return
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(e, v) }) {
		vd.fail(p, "%s", n.enumWant)
	}
	if n.hasConst && !jsonEqual(n.constVal, v) {
		vd.fail(p, "%s", n.constWant)
	}
	switch v := v.(type) {
	case map[string]any:
		vd.object(n, v, p)
	case []any:
		vd.array(n, v, p)
	case string:
		vd.string(n, v, p)
	case json.Number:
		vd.number(n, v, p)
	}
	vd.combinators(n, v, p)
}

func (t typeSet) has(v any) bool {
	switch v := v.(type) {
	case nil:
		return t&typeNull != 0
	case bool:
		return t&typeBoolean != 0
	case string:
		return t&typeString != 0
	case []any:
		return t&typeArray != 0
	case map[string]any:
		return t&typeObject != 0
	case json.Number:
		if t&typeNumber != 0 {
			return true
		}
		return t&typeInteger != 0 && isJSONNumber(string(v)) && isIntegralLiteral(string(v))
	}
	return false
}

func (vd *validator) object(n *node, obj map[string]any, p *valuePath) {
	var missing []string
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) == 1 {
		vd.fail(p, "missing property '%s'", missing[0])
	} else if len(missing) > 1 {
		vd.fail(p, "missing properties '%s'", strings.Join(missing, "', '"))
	}
	if n.minProps >= 0 && len(obj) < n.minProps {
		vd.fail(p, "minProperties: got %d, want %d", len(obj), n.minProps)
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		vd.fail(p, "maxProperties: got %d, want %d", len(obj), n.maxProps)
	}
	for _, d := range n.depRequired {
		if _, ok := obj[d.name]; !ok {
			continue
		}
		var absent []string
		for _, r := range d.required {
			if _, ok := obj[r]; !ok {
				absent = append(absent, r)
			}
		}
		if len(absent) > 0 {
			vd.fail(p, "properties '%s' required, if '%s' exists", strings.Join(absent, "', '"), d.name)
		}
	}
	for _, prop := range n.props {
		if pv, ok := obj[prop.name]; ok {
			vd.walk(prop.n, pv, &valuePath{parent: p, key: prop.name})
		}
	}
	if len(n.patternProps) > 0 || n.additional != nil || n.propertyNames != nil {
		// The value's keys in order, so that messages are stable.
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var extra []string
		for _, k := range keys {
			if n.propertyNames != nil {
				sub := validator{depth: vd.depth}
				sub.walk(n.propertyNames, k, p)
				if len(sub.errs) > 0 {
					vd.fail(p, "invalid property name '%s': %s", k, branchDetail(p, sub.errs))
				}
			}
			matched := false
			for _, pp := range n.patternProps {
				if pp.re.MatchString(k) {
					matched = true
					vd.walk(pp.n, obj[k], &valuePath{parent: p, key: k})
				}
			}
			if _, named := n.propIndex[k]; named || matched || n.additional == nil {
				continue
			}
			if n.additional.never {
				extra = append(extra, k)
				continue
			}
			vd.walk(n.additional, obj[k], &valuePath{parent: p, key: k})
		}
		if len(extra) > 0 {
			vd.fail(p, "additional properties '%s' not allowed", strings.Join(extra, "', '"))
		}
	}
	for _, d := range n.depSchemas {
		if _, ok := obj[d.name]; ok {
			vd.walk(d.n, obj, p)
		}
	}
}

func (vd *validator) array(n *node, a []any, p *valuePath) {
	if n.minItems >= 0 && len(a) < n.minItems {
		vd.fail(p, "minItems: got %d, want %d", len(a), n.minItems)
	}
	if n.maxItems >= 0 && len(a) > n.maxItems {
		vd.fail(p, "maxItems: got %d, want %d", len(a), n.maxItems)
	}
	if n.unique {
		if i, j, dup := firstDuplicate(a); dup {
			vd.fail(p, "items at %d and %d are equal", i, j)
		}
	}
	for i, e := range a {
		if i < len(n.prefix) {
			vd.walk(n.prefix[i], e, &valuePath{parent: p, index: i, isItem: true})
			continue
		}
		if n.items == nil {
			break
		}
		if n.items.never {
			vd.fail(p, "at most %d items allowed, got %d", len(n.prefix), len(a))
			break
		}
		vd.walk(n.items, e, &valuePath{parent: p, index: i, isItem: true})
	}
	if n.contains != nil {
		matches := 0
		for _, e := range a {
			sub := validator{depth: vd.depth}
			sub.walk(n.contains, e, nil)
			if len(sub.errs) == 0 {
				matches++
			}
		}
		least := 1
		if n.minContains >= 0 {
			least = n.minContains
		}
		if matches < least {
			vd.fail(p, "at least %d items must match 'contains', got %d", least, matches)
		}
		if n.maxContains >= 0 && matches > n.maxContains {
			vd.fail(p, "at most %d items may match 'contains', got %d", n.maxContains, matches)
		}
	}
}

func (vd *validator) string(n *node, s string, p *valuePath) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			vd.fail(p, "minLength: got %d, want %d", l, n.minLength)
		}
		if n.maxLength >= 0 && l > n.maxLength {
			vd.fail(p, "maxLength: got %d, want %d", l, n.maxLength)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		vd.fail(p, "'%s' does not match pattern '%s'", s, n.patternSrc)
	}
}

func (vd *validator) number(n *node, lit json.Number, p *valuePath) {
	if n.minimum == nil && n.maximum == nil && n.exclMin == nil && n.exclMax == nil && n.multipleOf == nil {
		return
	}
	v, ok := parseNumber(string(lit))
	if !ok {
		vd.fail(p, "%q is not a JSON number", string(lit))
		return
	}
	if n.minimum != nil && cmpNumber(v, *n.minimum) < 0 {
		vd.fail(p, "minimum: got %s, want %s", lit, n.minimum.lit)
	}
	if n.maximum != nil && cmpNumber(v, *n.maximum) > 0 {
		vd.fail(p, "maximum: got %s, want %s", lit, n.maximum.lit)
	}
	if n.exclMin != nil && cmpNumber(v, *n.exclMin) <= 0 {
		vd.fail(p, "exclusiveMinimum: got %s, want more than %s", lit, n.exclMin.lit)
	}
	if n.exclMax != nil && cmpNumber(v, *n.exclMax) >= 0 {
		vd.fail(p, "exclusiveMaximum: got %s, want less than %s", lit, n.exclMax.lit)
	}
	if n.multipleOf != nil && !isMultipleOf(v, *n.multipleOf) {
		vd.fail(p, "multipleOf: got %s, want a multiple of %s", lit, n.multipleOf.lit)
	}
}

// combinators applies allOf, anyOf, oneOf, not and if/then/else. A failed
// alternative is reported with the causes of each branch, so that the
// model sees what would have satisfied the schema.
func (vd *validator) combinators(n *node, v any, p *valuePath) {
	for _, s := range n.allOf {
		vd.walk(s, v, p)
	}
	if len(n.anyOf) > 0 {
		var causes []string
		for i, s := range n.anyOf {
			sub := validator{depth: vd.depth}
			sub.walk(s, v, p)
			if len(sub.errs) == 0 {
				causes = nil
				break
			}
			causes = append(causes, fmt.Sprintf("(%d) %s", i, branchDetail(p, sub.errs)))
		}
		if causes != nil {
			vd.fail(p, "anyOf failed, no alternative matched: %s", strings.Join(causes, "; "))
		}
	}
	if len(n.oneOf) > 0 {
		var causes []string
		var matched []string
		for i, s := range n.oneOf {
			sub := validator{depth: vd.depth}
			sub.walk(s, v, p)
			if len(sub.errs) == 0 {
				matched = append(matched, strconv.Itoa(i))
				continue
			}
			causes = append(causes, fmt.Sprintf("(%d) %s", i, branchDetail(p, sub.errs)))
		}
		switch {
		case len(matched) == 0:
			vd.fail(p, "oneOf failed, no alternative matched: %s", strings.Join(causes, "; "))
		case len(matched) > 1:
			vd.fail(p, "oneOf failed, alternatives %s all matched (exactly one must)", strings.Join(matched, ", "))
		}
	}
	if n.not != nil {
		sub := validator{depth: vd.depth}
		sub.walk(n.not, v, p)
		if len(sub.errs) == 0 {
			vd.fail(p, "value must not match the schema under 'not'")
		}
	}
	if n.ifN != nil && (n.thenN != nil || n.elseN != nil) {
		sub := validator{depth: vd.depth}
		sub.walk(n.ifN, v, p)
		if len(sub.errs) == 0 {
			vd.walk(n.thenN, v, p)
		} else {
			vd.walk(n.elseN, v, p)
		}
	}
}

// maxBranchCauses bounds the causes shown for one alternative.
const maxBranchCauses = 3

// branchDetail joins a branch's errors for one line; an error at the
// branch's own location drops its "at" prefix.
func branchDetail(p *valuePath, errs []string) string {
	prefix := at(p) + ": "
	var parts []string
	for i, e := range errs {
		if i == maxBranchCauses {
			parts = append(parts, fmt.Sprintf("and %d more", len(errs)-i))
			break
		}
		parts = append(parts, strings.TrimPrefix(e, prefix))
	}
	return strings.Join(parts, ", ")
}
