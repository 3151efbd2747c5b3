package tools

import (
	"encoding/json"
	"testing"
)

// Any schema text and any value: compiling and validating answer with an
// error or a result, never a panic, and a compiled schema accepts or
// refuses the same value the same way twice.
func FuzzSchemaValidate(f *testing.F) {
	for _, c := range [][2]string{
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, `{"n":0}`},
		{`{"type":"object","$defs":{"t":{"type":"object","properties":{"c":{"$ref":"#/$defs/t"}}}},"$ref":"#/$defs/t"}`, `{"c":{"c":{}}}`},
		{`{"type":"object","properties":{"l":{"type":"array","uniqueItems":true,"prefixItems":[{"const":1}]}}}`, `{"l":[1,1.0]}`},
		{`{"type":"object","properties":{"v":{"oneOf":[{"pattern":"^a"},{"multipleOf":0.1}]}}}`, `{"v":1e-400}`},
		{`{"type":"object","patternProperties":{"^x":{"maxLength":1}},"additionalProperties":false}`, `{"xé":"éé","y":1}`},
		{`{"type":"object","properties":{"n":{"maximum":1e999999}}}`, `{"n":-1e999999}`},
		{`{"allOf":[{"$ref":"#/allOf/0"}]}`, `{}`},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, schema, value string) {
		s, _, err := compileSchema(json.RawMessage(schema))
		if err != nil {
			return
		}
		v, err := decodeJSON(value)
		if err != nil {
			return
		}
		first := s.Validate(v)
		if second := s.Validate(v); (first == nil) != (second == nil) {
			t.Fatalf("validation not deterministic: %v then %v", first, second)
		}
		if first != nil && validationMessage(first) == "" {
			t.Fatal("an invalid value with an empty message")
		}
	})
}
