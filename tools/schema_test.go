package tools

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, schema string) *Schema {
	t.Helper()
	s, _, err := compileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return s
}

func validateText(t *testing.T, s *Schema, value string) error {
	t.Helper()
	v, err := decodeJSON(value)
	if err != nil {
		t.Fatalf("decode %s: %v", value, err)
	}
	return s.Validate(v)
}

// Each keyword tool schemas use, passing and failing; a failure must name
// the location and what was wanted.
func TestSchemaKeywords(t *testing.T) {
	obj := func(props string) string { return `{"type":"object","properties":{` + props + `}}` }
	cases := []struct {
		schema, value string
		want          []string // nil: valid
	}{
		{obj(`"n":{"type":"integer"}`), `{"n":3}`, nil},
		{obj(`"n":{"type":"integer"}`), `{"n":3.0}`, nil},
		{obj(`"n":{"type":"integer"}`), `{"n":1.5e1}`, nil},
		{obj(`"n":{"type":"integer"}`), `{"n":123456789012345678901234567890}`, nil},
		{obj(`"n":{"type":"integer"}`), `{"n":2.5}`, []string{"at '/n': got number, want integer"}},
		{obj(`"n":{"type":"integer"}`), `{"n":15e-1}`, []string{"want integer"}},
		{obj(`"n":{"type":"number"}`), `{"n":2}`, nil},
		{obj(`"n":{"type":["integer","null"]}`), `{"n":null}`, nil},
		{obj(`"n":{"type":["integer","null"]}`), `{"n":"x"}`, []string{"got string, want integer or null"}},
		{obj(`"n":{"type":"string","nullable":true}`), `{"n":null}`, []string{"got null, want string"}}, // nullable is ignored, as before
		{`{"type":"object","required":["a","b"]}`, `{"a":1}`, []string{"at root: missing property 'b'"}},
		{`{"type":"object","required":["a","b"]}`, `{}`, []string{"missing properties 'a', 'b'"}},
		{`{"type":"object","additionalProperties":false,"properties":{"a":{}}}`, `{"a":1,"c":2,"b":3}`, []string{"additional properties 'b', 'c' not allowed"}},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"a":"x","b":1}`, []string{"at '/b': got number, want string"}},
		{`{"type":"object","patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}`, `{"xa":1,"b":2}`,
			[]string{"at '/xa': got number, want string", "additional properties 'b' not allowed"}},
		{`{"type":"object","patternProperties":{"^x":{"type":"string"}},"additionalProperties":false}`, `{"xa":"y"}`, nil},
		{obj(`"s":{"enum":["a","b"]}`), `{"s":"c"}`, []string{"at '/s': value must be one of 'a', 'b'"}},
		{obj(`"s":{"enum":[1,"a",null]}`), `{"s":1.0}`, nil},
		{obj(`"s":{"const":{"k":[1,2]}}`), `{"s":{"k":[1,2.0]}}`, nil},
		{obj(`"s":{"const":"x"}`), `{"s":"y"}`, []string{"value must be 'x'"}},
		{obj(`"l":{"type":"array","items":{"type":"integer"},"minItems":3}`), `{"l":[1,"a"]}`,
			[]string{"at '/l': minItems: got 2, want 3", "at '/l/1': got string, want integer"}},
		{obj(`"l":{"maxItems":1}`), `{"l":[1,2]}`, []string{"maxItems: got 2, want 1"}},
		{obj(`"l":{"uniqueItems":true}`), `{"l":[1,2,1.0]}`, []string{"items at 0 and 2 are equal"}},
		{obj(`"l":{"uniqueItems":true}`), `{"l":[{"a":1,"b":2},{"b":2,"a":1}]}`, []string{"items at 0 and 1 are equal"}},
		{obj(`"l":{"uniqueItems":true}`), `{"l":[` + manyInts(100) + `,7]}`, []string{"items at 7 and 100 are equal"}},
		{obj(`"l":{"uniqueItems":true}`), `{"l":[` + manyInts(100) + `]}`, nil},
		{obj(`"l":{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`), `{"l":["a","b",3]}`,
			[]string{"at '/l/1': got string, want integer", "at '/l': at most 2 items allowed, got 3"}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"l":{"items":[{"type":"string"}],"additionalItems":{"type":"integer"}}}}`,
			`{"l":["a",1,"b"]}`, []string{"at '/l/2': got string, want integer"}},
		{obj(`"l":{"contains":{"type":"string"},"minContains":2}`), `{"l":["a",1]}`, []string{"at least 2 items must match 'contains', got 1"}},
		{obj(`"s":{"minLength":3,"maxLength":4}`), `{"s":"été"}`, nil}, // runes, not bytes
		{obj(`"s":{"maxLength":2}`), `{"s":"été"}`, []string{"maxLength: got 3, want 2"}},
		{obj(`"s":{"pattern":"^a+$"}`), `{"s":"b"}`, []string{"'b' does not match pattern '^a+$'"}},
		{obj(`"s":{"pattern":"\\d"}`), `{"s":"x1y"}`, nil}, // unanchored, as the specification says
		{obj(`"n":{"minimum":1}`), `{"n":0}`, []string{"at '/n': minimum: got 0, want 1"}},
		{obj(`"n":{"maximum":3}`), `{"n":3.0}`, nil},
		{obj(`"n":{"exclusiveMinimum":1}`), `{"n":1}`, []string{"exclusiveMinimum: got 1, want more than 1"}},
		{obj(`"n":{"exclusiveMaximum":1}`), `{"n":0.999}`, nil},
		{obj(`"n":{"multipleOf":0.1}`), `{"n":0.3}`, nil}, // exact: 0.3/0.1 in float64 is not 3
		{obj(`"n":{"multipleOf":0.5}`), `{"n":0.7}`, []string{"multipleOf: got 0.7, want a multiple of 0.5"}},
		{obj(`"n":{"maximum":9007199254740993}`), `{"n":9007199254740994}`, []string{"maximum: got 9007199254740994, want 9007199254740993"}},
		{obj(`"n":{"maximum":9007199254740993}`), `{"n":9007199254740993}`, nil},
		{obj(`"n":{"maximum":1e400}`), `{"n":1e399}`, nil},
		{obj(`"n":{"minimum":0}`), `{"n":-1e999999999}`, []string{"minimum: got -1e999999999"}},
		{`{"type":"object","properties":{"v":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"integer"}}}`, `{"v":"a"}`, []string{"at '/v': got string, want integer"}},
		{`{"type":"object","properties":{"v":{"$ref":"#/definitions/x"}},"definitions":{"x":{"type":"integer"}}}`, `{"v":"a"}`, []string{"want integer"}},
		{`{"type":"object","properties":{"v":{"$ref":"#/properties/w"},"w":{"type":"string"}}}`, `{"v":3}`, []string{"at '/v': got number, want string"}},
		{`{"type":"object","properties":{"a b":{"$ref":"#/$defs/a%20b"}},"$defs":{"a b":{"type":"string"}}}`, `{"a b":3}`, []string{"want string"}},
		{`{"type":"object","properties":{"a/b":{"type":"string"}}}`, `{"a/b":3}`, []string{"at '/a~1b'"}},
		// 2020-12 applies the keywords beside "$ref"; draft-07 ignores them.
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x","type":"string"}},"$defs":{"x":{"minLength":3}}}`, `{"a":"b"}`, []string{"minLength: got 1, want 3"}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/x","type":"string"}},"definitions":{"x":{"minLength":3}}}`, `{"a":5}`, nil},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/x","minLength":9}},"definitions":{"x":{"minLength":3}}}`, `{"a":"abcd"}`, nil},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"minimum":1,"exclusiveMinimum":true}}}`, `{"n":1}`, []string{"exclusiveMinimum"}},
		{obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]}`), `{"v":1}`,
			[]string{"at '/v': anyOf failed, no alternative matched: (0) got number, want string; (1) minimum: got 1, want 5"}},
		{obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]}`), `{"v":7}`, nil},
		{obj(`"v":{"oneOf":[{"type":"string"},{"type":"object","required":["k"]}]}`), `{"v":{}}`,
			[]string{"oneOf failed, no alternative matched: (0) got object, want string; (1) missing property 'k'"}},
		{obj(`"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}`), `{"v":1}`, []string{"oneOf failed, alternatives 0, 1 all matched"}},
		{obj(`"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}`), `{"v":1.5}`, nil},
		{obj(`"v":{"allOf":[{"type":"string"},{"minLength":5}]}`), `{"v":"a"}`, []string{"at '/v': minLength: got 1, want 5"}},
		{obj(`"v":{"not":{"type":"string"}}`), `{"v":"a"}`, []string{"at '/v': value must not match the schema under 'not'"}},
		{obj(`"v":{"not":{"type":"string"}}`), `{"v":1}`, nil},
		{`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`, []string{"missing property 'b'"}},
		{`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{}`, []string{"missing property 'c'"}},
		{`{"type":"object","dependentRequired":{"a":["b"]}}`, `{"a":1}`, []string{"properties 'b' required, if 'a' exists"}},
		{`{"type":"object","propertyNames":{"maxLength":2}}`, `{"abc":1}`, []string{"invalid property name 'abc': maxLength: got 3, want 2"}},
		{`{"type":"object","minProperties":2}`, `{"a":1}`, []string{"minProperties: got 1, want 2"}},
		{obj(`"v":false`), `{"v":1}`, []string{"at '/v': no value is allowed here"}},
		{obj(`"v":true`), `{"v":1}`, nil},
		{obj(`"v":{"format":"email","default":3}`), `{"v":"not an email"}`, nil}, // annotations
		{obj(`"v":{"x-unknown":{"type":"string"}}`), `{"v":1}`, nil},
		// Recursion through properties is bounded by the value.
		{`{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}`, `{"child":{"child":{"n":"x"}}}`, []string{"at '/child/child/n': got string, want integer"}},
	}
	for _, c := range cases {
		err := validateText(t, mustCompile(t, c.schema), c.value)
		if c.want == nil {
			if err != nil {
				t.Errorf("%s | %s: %v, want valid", c.schema, c.value, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s | %s: valid, want %q", c.schema, c.value, c.want)
			continue
		}
		msg := validationMessage(err)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s | %s: message lacks %q:\n%s", c.schema, c.value, w, msg)
			}
		}
	}
}

// manyInts is "0,1,…,n-1", long enough to take the keyed uniqueness path.
func manyInts(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(i)
	}
	return strings.Join(parts, ",")
}

// A document that is not a valid schema is refused with the path of each
// fault.
func TestSchemaFaults(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":12}}}`, "at '/properties/a/type': got number, want a type name"},
		{`{"type":"object","properties":{"a":{"type":"nonsense"}}}`, `at '/properties/a/type': "nonsense" is not a JSON Schema type`},
		{`{"type":"object","properties":{"a":{"type":["string","string"]}}}`, "appears twice"},
		{`{"type":"object","properties":{"a":{"type":[]}}}`, "must not be empty"},
		{`{"type":"object","required":3}`, "at '/required': got number, want an array of strings"},
		{`{"type":"object","required":["a","a"]}`, `"a" appears twice`},
		{`{"type":"object","properties":{"a":{"minimum":"3"}}}`, "at '/properties/a/minimum': got string, want number"},
		{`{"type":"object","properties":{"a":{"minLength":-1}}}`, "at '/properties/a/minLength': got -1, want a non-negative integer"},
		{`{"type":"object","properties":{"a":{"maxLength":2.5}}}`, "want a non-negative integer"},
		{`{"type":"object","properties":{"a":{"multipleOf":0}}}`, "want a number greater than 0"},
		{`{"type":"object","properties":{"a":{"pattern":"(?<=a)b"}}}`, "at '/properties/a/pattern': pattern \"(?<=a)b\" cannot be compiled"},
		{`{"type":"object","patternProperties":{"[a":{}}}`, "at '/patternProperties/[a': pattern \"[a\" cannot be compiled"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`, `at '/properties/a/$ref': reference "#/$defs/nope" does not resolve`},
		{`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, "refused: tool schemas must be self-contained"},
		{`{"type":"object","properties":{"a":{"$ref":"#anchor"}}}`, "only JSON pointers"},
		{`{"type":"object","properties":{"a":{"items":3}}}`, "at '/properties/a/items': a schema must be an object or a boolean, got number"},
		{`{"type":"object","properties":{"a":{"anyOf":[]}}}`, "at '/properties/a/anyOf': an array of schemas must not be empty"},
		{`{"type":"object","properties":{"a":{"format":3}}}`, "at '/properties/a/format': got number, want string"},
		{`{"type":"object","properties":{"a":{"enum":"x"}}}`, "got string, want array"},
		{`{"type":"object","properties":{"a":{"uniqueItems":"yes"}}}`, "got string, want boolean"},
		{`{"type":"object","$defs":{"bad":{"type":"objec"}}}`, "at '/$defs/bad/type'"},
		{`{"type":"object","properties":{"n":{"exclusiveMinimum":true}}}`, "got boolean, want number"}, // draft-04 form outside draft-04
		// In-place reference cycles would never end.
		{`{"type":"object","$defs":{"x":{"$ref":"#/$defs/x"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`, "reference cycle"},
		{`{"type":"object","$defs":{"x":{"allOf":[{"$ref":"#/$defs/y"}]},"y":{"anyOf":[{"$ref":"#/$defs/x"}]}}}`, "reference cycle"},
		{`{"type":"object","allOf":[{"$ref":"#"}]}`, "reference cycle"},
	}
	for _, c := range cases {
		_, _, err := compileSchema(json.RawMessage(c.schema))
		if err == nil {
			t.Errorf("%s: compiled, want a fault containing %q", c.schema, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error lacks %q:\n%v", c.schema, c.want, err)
		}
	}
	// Every fault is listed, not the first only.
	_, _, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"x"},"b":{"minimum":"y"}},"required":3}`))
	for _, w := range []string{"/properties/a/type", "/properties/b/minimum", "/required"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

// The schemas of the MCP servers tested in mcp/ (server-everything,
// filesystem and memory, as their tools/list returned them) compile, and
// an empty call is refused exactly when they require something.
func TestMCPServerSchemasCompile(t *testing.T) {
	data, err := os.ReadFile("testdata/mcp_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	if len(all) < 30 {
		t.Fatalf("only %d schemas in testdata", len(all))
	}
	for name, raw := range all {
		s, _, err := compileSchema(raw)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var doc struct {
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(raw, &doc)
		err = s.Validate(map[string]any{})
		if (err != nil) != (len(doc.Required) > 0) {
			t.Errorf("%s: validating {} gave %v with required %v", name, err, doc.Required)
		}
	}
}

// A value nested deeper than the schema is only as costly as the schema;
// one deeper than the recursion bound is refused, not a crash.
func TestValidationDepthIsBounded(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"c":{"$ref":"#"}}}`)
	v := any(map[string]any{})
	for range maxValidationDepth + 5 {
		v = map[string]any{"c": v}
	}
	err := s.Validate(v)
	if err == nil || !strings.Contains(err.Error(), "nested too deep") {
		t.Fatalf("Validate = %v, want the depth bound", err)
	}
}

// The line list is deduplicated and cut after maxValidationLines.
func TestValidationMessageIsBounded(t *testing.T) {
	var props []string
	for i := range 30 {
		props = append(props, `"p`+strconv.Itoa(i)+`":{"type":"integer"}`)
	}
	s := mustCompile(t, `{"type":"object","properties":{`+strings.Join(props, ",")+`}}`)
	var vals []string
	for i := range 30 {
		vals = append(vals, `"p`+strconv.Itoa(i)+`":"x"`)
	}
	msg := validationMessage(validateText(t, s, `{`+strings.Join(vals, ",")+`}`))
	if n := strings.Count(msg, "\n") + 1; n != maxValidationLines+1 || !strings.Contains(msg, "… and 18 more") {
		t.Errorf("%d lines:\n%s", n, msg)
	}
}
