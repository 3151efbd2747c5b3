// Package strictyaml reads Moteur's configuration and policy files
// strictly: a file must be small and regular, and an unknown or duplicate
// key, a wrong type or a second document is an error that names the line —
// a typo must never silently disable a rule.
package strictyaml

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/moteur/moteur/smallfile"
	"github.com/moteur/moteur/suggest"
)

// MaxFileSize bounds what is read: configuration is small, and a path that
// names something huge (or endless) must fail rather than fill memory.
const MaxFileSize = 1 << 20

// ReadFile reads a regular file of at most MaxFileSize bytes. It checks
// the type before opening, since opening a FIFO blocks until a writer comes.
func ReadFile(path string) ([]byte, error) {
	return smallfile.Read(path, MaxFileSize)
}

// Error is a YAML problem at a line of the file.
type Error struct {
	Line int    // 1-based; 0 when unknown
	Key  string // for an unknown key: the key
	Msg  string
	Err  error // the decoder's error, if any
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Decode decodes the one YAML document in data into v: unknown keys,
// duplicate keys and values of the wrong type are errors with their line.
// Empty input, or input with only comments, leaves v untouched. The parsed
// file is returned to find the lines of values that fail validation later.
func Decode(data []byte, v any) (*ast.File, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, fromDecoder(err)
	}
	if len(f.Docs) > 1 {
		return nil, &Error{Line: docLine(f.Docs[1]), Msg: "a second YAML document: the file must hold one"}
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return f, nil
	}
	if err := yaml.NodeToValue(f.Docs[0].Body, v, yaml.DisallowUnknownField()); err != nil {
		out := fromDecoder(err)
		var ye *Error
		var unknown *yaml.UnknownFieldError
		if errors.As(out, &ye) && errors.As(err, &unknown) {
			if s := suggestKey(f.Docs[0].Body, reflect.TypeOf(v), ye); s != "" {
				ye.Msg += fmt.Sprintf("; did you mean %q?", s)
			}
		}
		return nil, out
	}
	return f, nil
}

func docLine(d *ast.DocumentNode) int {
	if d.Start != nil {
		return d.Start.Position.Line
	}
	if d.Body != nil && d.Body.GetToken() != nil {
		return d.Body.GetToken().Position.Line
	}
	return 0
}

// fromDecoder turns the decoder's error into a Error that says what is
// wrong in the file's words (keys, lists, numbers), not Go's. It never
// quotes a value, which could be a secret typed in the wrong place.
func fromDecoder(err error) error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return &Error{Msg: err.Error(), Err: err}
	}
	out := &Error{Msg: ye.GetMessage(), Err: err}
	tk := ye.GetToken()
	if tk != nil {
		out.Line = tk.Position.Line
		// A "key: value" under a line it cannot continue (indented too
		// far, or a key missing) is reported at the plain text before it,
		// which reads as one scalar from the line above: the mistake is
		// where the colon is.
		if n := tk.Next; n != nil && n.Type == token.MappingValueType && n.Position.Line > out.Line {
			out.Line = n.Position.Line
			out.Msg += " (check the indentation of this line and the one above)"
		}
	}
	var unknown *yaml.UnknownFieldError
	var typ *yaml.TypeError
	var node *yaml.UnexpectedNodeTypeError
	switch {
	case errors.As(err, &unknown) && tk != nil:
		out.Key = tk.Value
		out.Msg = fmt.Sprintf("unknown key %q", tk.Value)
	case errors.As(err, &typ):
		out.Msg = "wrong type: want " + describeKind(typ.DstType.Kind().String())
		if k := keyOf(tk); k != "" {
			out.Msg = fmt.Sprintf("%s: %s", k, out.Msg)
		}
	case errors.As(err, &node):
		if k := keyOf(tk); k != "" {
			out.Msg = fmt.Sprintf("%s: %s", k, out.Msg)
		}
	}
	return out
}

// keyOf finds the mapping key a value token belongs to ("key: value").
func keyOf(tk *token.Token) string {
	if tk == nil || tk.Prev == nil || tk.Prev.Type != token.MappingValueType || tk.Prev.Prev == nil {
		return ""
	}
	return tk.Prev.Prev.Value
}

func describeKind(k string) string {
	switch {
	case k == "string":
		return "text"
	case k == "bool":
		return "true or false"
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "a whole number"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "slice" || k == "array":
		return "a list"
	case k == "map" || k == "struct":
		return "a mapping (key: value)"
	}
	return k
}

// LineOf returns the line of the value at path ("$.providers[1].base_url")
// in f; when that value is absent (a missing key), the line of the nearest
// enclosing one; 0 when none can be found.
func LineOf(f *ast.File, path string) int {
	if f == nil {
		return 0
	}
	for path != "" && path != "$" {
		if p, err := yaml.PathString(path); err == nil {
			if n, err := p.FilterFile(f); err == nil && n != nil && n.GetToken() != nil {
				return n.GetToken().Position.Line
			}
		}
		path = path[:max(strings.LastIndexAny(path, ".["), 0)]
	}
	return 0
}

// suggestKey is the known key closest to the unknown key e names, among
// those of the struct the key's mapping decodes into (t is the type of the
// whole document's target); "" when none is close.
func suggestKey(body ast.Node, t reflect.Type, e *Error) string {
	path, ok := keyPath(body, e.Line, e.Key)
	if !ok {
		return ""
	}
	for _, seg := range path[:len(path)-1] {
		if t = childType(t, seg); t == nil {
			return ""
		}
	}
	best, bestDist := "", 3 // at most two edits
	for _, name := range keyNames(t) {
		if d := suggest.Distance(e.Key, name); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// keyPath is the path of mapping keys (and "[]" for list items) from n to
// the key key written at line.
func keyPath(n ast.Node, line int, key string) ([]string, bool) {
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, mv := range n.Values {
			if p, ok := keyPath(mv, line, key); ok {
				return p, true
			}
		}
	case *ast.MappingValueNode:
		if k := n.Key.GetToken(); k != nil && k.Position.Line == line && k.Value == key {
			return []string{key}, true
		}
		if p, ok := keyPath(n.Value, line, key); ok {
			name := ""
			if k := n.Key.GetToken(); k != nil {
				name = k.Value
			}
			return append([]string{name}, p...), true
		}
	case *ast.SequenceNode:
		for _, item := range n.Values {
			if p, ok := keyPath(item, line, key); ok {
				return append([]string{"[]"}, p...), true
			}
		}
	case *ast.TagNode:
		return keyPath(n.Value, line, key)
	case *ast.AnchorNode:
		return keyPath(n.Value, line, key)
	}
	return nil, false
}

// childType is the type a value at key seg of a t decodes into ("[]": an
// item of a list); nil when t does not say.
func childType(t reflect.Type, seg string) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil:
		return nil
	case seg == "[]" && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		return t.Elem()
	case t.Kind() == reflect.Map:
		return t.Elem()
	case t.Kind() == reflect.Struct:
		var found reflect.Type
		eachKey(t, func(name string, ft reflect.Type) {
			if name == seg && found == nil {
				found = ft
			}
		})
		return found
	}
	return nil
}

// keyNames are the keys a struct t accepts.
func keyNames(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	eachKey(t, func(name string, _ reflect.Type) { names = append(names, name) })
	return names
}

// eachKey calls fn with each key of struct t as the decoder names them
// (the yaml tag, else the field's name in lower case; inline fields' keys
// as their own) and the type of its value.
func eachKey(t reflect.Type, fn func(name string, ft reflect.Type)) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				eachKey(ft, fn)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fn(name, f.Type)
	}
}
