package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The validator is santhosh-tekuri/jsonschema although its package
// initialisation costs a few milliseconds at every start of the program:
// github.com/google/jsonschema-go (v0.4.3), already in the build, stops at
// the first failed keyword (the model would learn one wrong argument per
// round trip), accepts unknown type names such as "objec" in a schema,
// cannot validate json.Number values (decoding to float64 would round
// large integers), and reports oneOf/anyOf failures without their causes.

// emptySchema stands for a tool that declares no parameters: providers
// require an object schema even then.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// schemaURL names every schema in its own compiler. Each tool gets a fresh
// compiler, so the names never clash; a non-file scheme keeps the working
// directory out of error messages.
const schemaURL = "mem:///parameters.json"

// maxValidationLines bounds the error list sent back to the model: past a
// dozen, more detail only costs tokens.
const maxValidationLines = 12

// refuseLoader stops a schema from pulling documents through "$ref": a tool
// schema (an MCP server's, say) must not make the engine read files or reach
// the network. Standard metaschemas are built into the library and need no
// loader.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %s refused: tool schemas must be self-contained", url)
}

// compileSchema checks raw and compiles it. It returns the compacted bytes
// that Definitions sends, so that formatting differences in a tool's source
// never change the payload.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, json.RawMessage, error) {
	compact, err := compactSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(compact))
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
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		var sve *jsonschema.SchemaValidationError
		if errors.As(err, &sve) {
			// Same flattening as for arguments: the metaschema tree is
			// dozens of lines for one misspelt keyword.
			return nil, nil, &flatError{msg: "not valid against the JSON Schema metaschema:\n" + validationMessage(sve.Err), err: err}
		}
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

// flatError shows a short message but keeps the library's error for
// errors.As.
type flatError struct {
	msg string
	err error
}

func (e *flatError) Error() string { return e.msg }
func (e *flatError) Unwrap() error { return e.err }

// validationMessage flattens the library's error tree into one short line
// per failed leaf ("at '/count': got string, want integer"). The full tree
// repeats every enclosing keyword and the schema URL, which the model cannot
// act on.
func validationMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var lines []string
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		// A leaf prints as one line; the root pointer reads better named.
		line, ok := strings.CutPrefix(e.Error(), "at '': ")
		if ok {
			line = "at root: " + line
		}
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	walk(ve)
	if len(lines) == 0 {
		return ve.Error()
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == maxValidationLines {
			fmt.Fprintf(&b, "- … and %d more", len(lines)-i)
			break
		}
		b.WriteString("- ")
		b.WriteString(l)
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
