package tools

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The validator agrees with an independent implementation
// (santhosh-tekuri/jsonschema, used here as an oracle only) on whether
// random values satisfy random schemas built from the keywords tool
// schemas use.
func TestValidatorAgreesWithOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	schemas, values := 1500, 25
	if testing.Short() {
		schemas = 200
	}
	disagreements, valid, total := 0, 0, 0
	for range schemas {
		doc := map[string]any{"type": "object", "properties": map[string]any{
			"a": genSchema(rng, 2), "b": genSchema(rng, 2), "c": genSchema(rng, 1)}}
		if rng.IntN(3) == 0 {
			doc["required"] = []any{"a", "c"}
		}
		if rng.IntN(4) == 0 {
			doc["additionalProperties"] = genSchema(rng, 1)
		}
		if rng.IntN(4) == 0 {
			doc["$defs"] = map[string]any{"d": genSchema(rng, 1)}
			doc["properties"].(map[string]any)["r"] = map[string]any{"$ref": "#/$defs/d"}
		}
		text, _ := json.Marshal(doc)
		mine, _, err := compileSchema(text)
		if err != nil {
			t.Fatalf("compile %s: %v", text, err)
		}
		oracle := compileOracle(t, string(text))
		for range values {
			v := map[string]any{}
			for _, k := range []string{"a", "b", "c", "r", "x1"} {
				if rng.IntN(2) == 0 {
					v[k] = genValue(rng, 2)
				}
			}
			vt, _ := json.Marshal(v)
			val, err := decodeJSON(string(vt))
			if err != nil {
				t.Fatal(err)
			}
			got := mine.Validate(val)
			want := oracle.Validate(val)
			total++
			if want == nil {
				valid++
			}
			if (got == nil) != (want == nil) {
				disagreements++
				if disagreements <= 5 {
					t.Errorf("schema %s\nvalue %s\nMoteur: %v\noracle: %v", text, vt, got, want)
				}
			}
		}
	}
	if disagreements > 0 {
		t.Errorf("%d disagreements", disagreements)
	}
	// Agreement means something only if both answers are common.
	if valid < total/10 || valid > total*9/10 {
		t.Errorf("%d of %d values valid: the generator no longer tests both outcomes", valid, total)
	}
}

func compileOracle(t *testing.T, text string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///s.json")
	if err != nil {
		t.Fatalf("oracle compile %s: %v", text, err)
	}
	return s
}

var genPatterns = []string{"^a", "b$", "^[a-c]+$", "é", "^\\d+$", "x|y"}

// genSchema builds a random schema of the supported keywords, depth bounded.
func genSchema(rng *rand.Rand, depth int) any {
	if rng.IntN(12) == 0 {
		return rng.IntN(2) == 0
	}
	s := map[string]any{}
	types := []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	switch rng.IntN(4) {
	case 0:
		s["type"] = types[rng.IntN(len(types))]
	case 1:
		s["type"] = []any{types[rng.IntN(3)], types[3+rng.IntN(4)]}
	}
	add := func(p int, k string, v func() any) {
		if rng.IntN(2*p) == 0 {
			s[k] = v()
		}
	}
	num := func() any { return json.Number(genNumber(rng)) }
	small := func() any { return json.Number(fmt.Sprint(rng.IntN(4))) }
	add(5, "minimum", num)
	add(5, "maximum", num)
	add(7, "exclusiveMinimum", num)
	add(7, "exclusiveMaximum", num)
	add(7, "multipleOf", func() any { return json.Number([]string{"2", "0.5", "3", "0.1"}[rng.IntN(4)]) })
	add(5, "minLength", small)
	add(5, "maxLength", small)
	add(5, "pattern", func() any { return genPatterns[rng.IntN(len(genPatterns))] })
	add(6, "enum", func() any { return []any{genValue(rng, 0), genValue(rng, 1), "a"} })
	add(10, "const", func() any { return genValue(rng, 1) })
	add(6, "minItems", small)
	add(6, "maxItems", small)
	add(5, "uniqueItems", func() any { return true })
	add(6, "minProperties", small)
	add(6, "required", func() any { return []any{"a"} })
	if depth > 0 {
		sub := func() any { return genSchema(rng, depth-1) }
		list := func() any { return []any{genSchema(rng, depth-1), genSchema(rng, depth-1)} }
		add(4, "items", sub)
		add(6, "prefixItems", list)
		add(4, "properties", func() any { return map[string]any{"a": sub(), "b": sub()} })
		add(6, "patternProperties", func() any { return map[string]any{"^x": sub()} })
		add(6, "additionalProperties", sub)
		add(7, "allOf", list)
		add(6, "anyOf", list)
		add(6, "oneOf", list)
		add(8, "not", sub)
		add(10, "contains", sub)
		add(10, "propertyNames", sub)
		if rng.IntN(10) == 0 {
			s["if"], s["then"], s["else"] = sub(), sub(), sub()
		}
	}
	return s
}

func genNumber(rng *rand.Rand) string {
	return []string{"0", "1", "-1", "2", "2.5", "1.0", "3", "10", "0.3", "-0.5", "1e1", "7"}[rng.IntN(12)]
}

func genValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth == 0 && k >= 5 {
		k = rng.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return json.Number(genNumber(rng))
	case 3, 4:
		return []string{"", "a", "ab", "abc", "été", "b", "x", "12", "aé"}[rng.IntN(9)]
	case 5:
		n := rng.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = genValue(rng, depth-1)
		}
		return a
	}
	m := map[string]any{}
	for _, key := range []string{"a", "b", "x1", "xyz"} {
		if rng.IntN(2) == 0 {
			m[key] = genValue(rng, depth-1)
		}
	}
	return m
}
