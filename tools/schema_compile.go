package tools

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// compileDoc compiles a decoded schema document. A document that is not a
// valid schema gets a *schemaError listing every fault with its path.
func compileDoc(doc any) (*Schema, error) {
	c := &compiler{doc: doc, memo: map[string]*node{}}
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"].(string); ok {
			// Before draft 2019-09, keywords beside "$ref" are ignored.
			c.old = strings.Contains(s, "draft-04") || strings.Contains(s, "draft-06") || strings.Contains(s, "draft-07")
		}
	}
	root := c.compile("", doc)
	if len(c.faults) == 0 {
		c.checkCycles()
	}
	if len(c.faults) > 0 {
		return nil, &schemaError{faults: c.faults}
	}
	return &Schema{root: root}, nil
}

// schemaError lists what makes a document not a valid schema.
type schemaError struct{ faults []string }

func (e *schemaError) Error() string {
	return "not a valid JSON Schema:\n" + bulletList(e.faults)
}

type compiler struct {
	doc    any
	old    bool
	memo   map[string]*node // by location, so that "$ref" cycles close
	faults []string
}

func (c *compiler) fault(loc, format string, args ...any) {
	at := "at root"
	if loc != "" {
		at = "at '" + loc + "'"
	}
	c.faults = append(c.faults, at+": "+fmt.Sprintf(format, args...))
}

// compile compiles the schema raw found at loc.
func (c *compiler) compile(loc string, raw any) *node {
	if n, ok := c.memo[loc]; ok {
		return n
	}
	n := newNode(loc)
	c.memo[loc] = n
	switch raw := raw.(type) {
	case bool:
		n.never = !raw
		return n
	case map[string]any:
		c.keywords(n, raw)
	default:
		c.fault(loc, "a schema must be an object or a boolean, got %s", jsonKind(raw))
	}
	return n
}

func (c *compiler) keywords(n *node, s map[string]any) {
	loc := n.loc
	at := func(kw string) string { return loc + "/" + pointerToken(kw) }
	// Definitions are compiled whether referenced or not: a fault in one
	// is a fault of the document.
	for _, kw := range []string{"$defs", "definitions"} {
		if v, ok := s[kw]; ok {
			c.schemaMap(at(kw), v)
		}
	}
	if v, ok := s["$ref"]; ok {
		ref, ok := v.(string)
		if !ok {
			c.fault(at("$ref"), "got %s, want string", jsonKind(v))
		} else {
			n.ref = c.reference(at("$ref"), ref)
		}
		if c.old {
			return
		}
	}
	for _, kw := range []string{"$schema", "$id", "format"} {
		if v, ok := s[kw]; ok {
			if _, ok := v.(string); !ok {
				c.fault(at(kw), "got %s, want string", jsonKind(v))
			}
		}
	}
	if v, ok := s["type"]; ok {
		c.types(n, at("type"), v)
	}
	if v, ok := s["enum"]; ok {
		if a, ok := v.([]any); ok {
			n.enum = a
			n.enumWant = "value must be one of " + quoteValues(a)
			if len(a) == 1 {
				n.enumWant = "value must be " + quoteValues(a)
			}
		} else {
			c.fault(at("enum"), "got %s, want array", jsonKind(v))
		}
	}
	if v, ok := s["const"]; ok {
		n.hasConst, n.constVal = true, v
		n.constWant = "value must be " + quoteValues([]any{v})
	}
	n.allOf = c.schemaList(at("allOf"), s["allOf"])
	n.anyOf = c.schemaList(at("anyOf"), s["anyOf"])
	n.oneOf = c.schemaList(at("oneOf"), s["oneOf"])
	n.not = c.sub(at("not"), s["not"])
	n.ifN = c.sub(at("if"), s["if"])
	n.thenN = c.sub(at("then"), s["then"])
	n.elseN = c.sub(at("else"), s["else"])

	// Objects.
	if v, ok := s["properties"]; ok {
		n.props = c.schemaMap(at("properties"), v)
		n.propIndex = make(map[string]*node, len(n.props))
		for _, p := range n.props {
			n.propIndex[p.name] = p.n
		}
	}
	if v, ok := s["patternProperties"]; ok {
		for _, p := range c.schemaMap(at("patternProperties"), v) {
			re, err := regexp.Compile(p.name)
			if err != nil {
				c.fault(at("patternProperties")+"/"+pointerToken(p.name), "pattern %q cannot be compiled: %v", p.name, err)
				continue
			}
			n.patternProps = append(n.patternProps, patternNode{re: re, src: p.name, n: p.n})
		}
	}
	n.additional = c.sub(at("additionalProperties"), s["additionalProperties"])
	if v, ok := s["required"]; ok {
		n.required = c.stringSet(at("required"), v)
	}
	n.propertyNames = c.sub(at("propertyNames"), s["propertyNames"])
	n.minProps = c.count(at("minProperties"), s["minProperties"])
	n.maxProps = c.count(at("maxProperties"), s["maxProperties"])
	if v, ok := s["dependentRequired"]; ok {
		c.dependentRequired(n, at("dependentRequired"), v)
	}
	if v, ok := s["dependentSchemas"]; ok {
		n.depSchemas = c.schemaMap(at("dependentSchemas"), v)
	}
	if v, ok := s["dependencies"]; ok {
		c.dependencies(n, at("dependencies"), v)
	}

	// Arrays: 2020-12 writes a tuple as prefixItems and the rest as items;
	// draft-07 as an items array and the rest as additionalItems.
	if v, ok := s["prefixItems"]; ok {
		n.prefix = c.schemaList(at("prefixItems"), v)
	}
	if v, ok := s["items"]; ok {
		if a, ok := v.([]any); ok && n.prefix == nil {
			n.prefix = c.schemaList(at("items"), a)
			if n.prefix == nil {
				n.prefix = []*node{}
			}
			n.items = c.sub(at("additionalItems"), s["additionalItems"])
		} else {
			n.items = c.sub(at("items"), v)
		}
	}
	n.contains = c.sub(at("contains"), s["contains"])
	n.minContains = c.count(at("minContains"), s["minContains"])
	n.maxContains = c.count(at("maxContains"), s["maxContains"])
	n.minItems = c.count(at("minItems"), s["minItems"])
	n.maxItems = c.count(at("maxItems"), s["maxItems"])
	if v, ok := s["uniqueItems"]; ok {
		b, ok := v.(bool)
		if !ok {
			c.fault(at("uniqueItems"), "got %s, want boolean", jsonKind(v))
		}
		n.unique = b
	}

	// Strings.
	n.minLength = c.count(at("minLength"), s["minLength"])
	n.maxLength = c.count(at("maxLength"), s["maxLength"])
	if v, ok := s["pattern"]; ok {
		if p, ok := v.(string); !ok {
			c.fault(at("pattern"), "got %s, want string", jsonKind(v))
		} else if re, err := regexp.Compile(p); err != nil {
			c.fault(at("pattern"), "pattern %q cannot be compiled (Go regular expression syntax): %v", p, err)
		} else {
			n.pattern, n.patternSrc = re, p
		}
	}

	// Numbers. Draft-04 wrote exclusive bounds as booleans beside
	// minimum/maximum.
	n.minimum = c.bound(at("minimum"), s["minimum"])
	n.maximum = c.bound(at("maximum"), s["maximum"])
	if b, ok := s["exclusiveMinimum"].(bool); ok && c.old {
		if b {
			n.exclMin, n.minimum = n.minimum, nil
		}
	} else {
		n.exclMin = c.bound(at("exclusiveMinimum"), s["exclusiveMinimum"])
	}
	if b, ok := s["exclusiveMaximum"].(bool); ok && c.old {
		if b {
			n.exclMax, n.maximum = n.maximum, nil
		}
	} else {
		n.exclMax = c.bound(at("exclusiveMaximum"), s["exclusiveMaximum"])
	}
	if m := c.bound(at("multipleOf"), s["multipleOf"]); m != nil {
		if cmpNumber(*m, number{isInt: true}) <= 0 {
			c.fault(at("multipleOf"), "got %s, want a number greater than 0", m.lit)
		} else {
			n.multipleOf = m
		}
	}
}

func (c *compiler) types(n *node, loc string, v any) {
	var names []string
	switch v := v.(type) {
	case string:
		names = []string{v}
	case []any:
		if len(v) == 0 {
			c.fault(loc, "an array of types must not be empty")
			return
		}
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				c.fault(loc, "got %s in the array of types, want a type name", jsonKind(e))
				return
			}
			if slices.Contains(names, s) {
				c.fault(loc, "type %q appears twice", s)
				return
			}
			names = append(names, s)
		}
	default:
		c.fault(loc, "got %s, want a type name or an array of type names", jsonKind(v))
		return
	}
	for _, name := range names {
		t, ok := typeNames[name]
		if !ok {
			c.fault(loc, "%q is not a JSON Schema type (want one of array, boolean, integer, null, number, object, string)", name)
			return
		}
		n.types |= t
	}
	n.typeWant = strings.Join(names, " or ")
}

// sub compiles an optional subschema.
func (c *compiler) sub(loc string, raw any) *node {
	if raw == nil {
		return nil
	}
	return c.compile(loc, raw)
}

func (c *compiler) schemaList(loc string, raw any) []*node {
	if raw == nil {
		return nil
	}
	a, ok := raw.([]any)
	if !ok {
		c.fault(loc, "got %s, want an array of schemas", jsonKind(raw))
		return nil
	}
	if len(a) == 0 {
		c.fault(loc, "an array of schemas must not be empty")
		return nil
	}
	out := make([]*node, len(a))
	for i, s := range a {
		out[i] = c.compile(loc+"/"+strconv.Itoa(i), s)
	}
	return out
}

// schemaMap compiles an object whose values are schemas, in key order.
func (c *compiler) schemaMap(loc string, raw any) []namedNode {
	m, ok := raw.(map[string]any)
	if !ok {
		c.fault(loc, "got %s, want an object of schemas", jsonKind(raw))
		return nil
	}
	keys := sortedKeys(m)
	out := make([]namedNode, len(keys))
	for i, k := range keys {
		out[i] = namedNode{name: k, n: c.compile(loc+"/"+pointerToken(k), m[k])}
	}
	return out
}

func (c *compiler) stringSet(loc string, raw any) []string {
	a, ok := raw.([]any)
	if !ok {
		c.fault(loc, "got %s, want an array of strings", jsonKind(raw))
		return nil
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			c.fault(loc, "got %s in the array, want string", jsonKind(e))
			return nil
		}
		if slices.Contains(out, s) {
			c.fault(loc, "%q appears twice", s)
			return nil
		}
		out = append(out, s)
	}
	return out
}

// count reads a non-negative integer keyword; -1 when absent.
func (c *compiler) count(loc string, raw any) int {
	if raw == nil {
		return -1
	}
	lit, ok := raw.(json.Number)
	if !ok {
		c.fault(loc, "got %s, want a non-negative integer", jsonKind(raw))
		return -1
	}
	num, ok := parseNumber(string(lit))
	if !ok || !isIntegralLiteral(string(lit)) || cmpNumber(num, number{isInt: true}) < 0 {
		c.fault(loc, "got %s, want a non-negative integer", lit)
		return -1
	}
	if !num.isInt || num.i > 1<<31 {
		return 1 << 31 // no value is that large
	}
	return int(num.i)
}

func (c *compiler) bound(loc string, raw any) *number {
	if raw == nil {
		return nil
	}
	lit, ok := raw.(json.Number)
	if !ok {
		c.fault(loc, "got %s, want number", jsonKind(raw))
		return nil
	}
	num, ok := parseNumber(string(lit))
	if !ok {
		c.fault(loc, "got %s, want number", lit)
		return nil
	}
	return &num
}

func (c *compiler) dependentRequired(n *node, loc string, raw any) {
	m, ok := raw.(map[string]any)
	if !ok {
		c.fault(loc, "got %s, want an object of string arrays", jsonKind(raw))
		return
	}
	for _, k := range sortedKeys(m) {
		n.depRequired = append(n.depRequired, dependency{name: k, required: c.stringSet(loc+"/"+pointerToken(k), m[k])})
	}
}

// dependencies is draft-07's keyword, which held both kinds of dependency.
func (c *compiler) dependencies(n *node, loc string, raw any) {
	m, ok := raw.(map[string]any)
	if !ok {
		c.fault(loc, "got %s, want an object", jsonKind(raw))
		return
	}
	for _, k := range sortedKeys(m) {
		kloc := loc + "/" + pointerToken(k)
		if a, ok := m[k].([]any); ok {
			n.depRequired = append(n.depRequired, dependency{name: k, required: c.stringSet(kloc, a)})
		} else {
			n.depSchemas = append(n.depSchemas, namedNode{name: k, n: c.compile(kloc, m[k])})
		}
	}
}

// reference resolves a "$ref" within the document. A tool schema (an MCP
// server's, say) must not make the engine read files or reach the network.
func (c *compiler) reference(loc, ref string) *node {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		c.fault(loc, "external schema %q refused: tool schemas must be self-contained", ref)
		return nil
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		c.fault(loc, "reference %q is not a valid URI fragment: %v", ref, err)
		return nil
	}
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		c.fault(loc, "reference %q refused: only JSON pointers within the schema (\"#/...\") are supported", ref)
		return nil
	}
	target, ok := resolvePointer(c.doc, ptr)
	if !ok {
		c.fault(loc, "reference %q does not resolve within the schema", ref)
		return nil
	}
	return c.compile(ptr, target)
}

// resolvePointer follows a JSON pointer (RFC 6901) into doc.
func resolvePointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// checkCycles refuses a schema that applies itself to the same value
// through references and combinators ({"$defs":{"a":{"$ref":"#/$defs/a"}}}):
// validating against it would never end. A cycle that passes through
// properties or items is fine: each turn descends into the value, which
// is finite. So only the graph of in-place edges must be acyclic.
func (c *compiler) checkCycles() {
	const (
		active = 1
		done   = 2
	)
	state := map[*node]int{}
	var stack []*node
	var visit func(n *node) bool
	visit = func(n *node) bool {
		switch state[n] {
		case active:
			i := slices.Index(stack, n)
			var locs []string
			for _, s := range stack[i:] {
				locs = append(locs, "'"+s.loc+"'")
			}
			c.fault(n.loc, "reference cycle applies the schema to the same value without end (%s → '%s')", strings.Join(locs, " → "), n.loc)
			return false
		case done:
			return true
		}
		state[n] = active
		stack = append(stack, n)
		for _, m := range inPlaceEdges(n) {
			if m != nil && !visit(m) {
				return false
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return true
	}
	locs := make([]string, 0, len(c.memo))
	for loc := range c.memo {
		locs = append(locs, loc)
	}
	slices.Sort(locs)
	for _, loc := range locs {
		if !visit(c.memo[loc]) {
			return
		}
	}
}

func inPlaceEdges(n *node) []*node {
	out := []*node{n.ref, n.not, n.ifN, n.thenN, n.elseN}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, d := range n.depSchemas {
		out = append(out, d.n)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// quoteValues writes values for a message: strings in single quotes
// ('a', 'b'), anything else as JSON.
func quoteValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok {
			parts[i] = "'" + s + "'"
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			parts[i] = fmt.Sprint(v)
			continue
		}
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}
