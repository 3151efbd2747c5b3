package tools

import (
	"regexp"
	"strings"
)

// Moteur validates tool arguments with a JSON Schema validator of its own.
// A general-purpose library cost milliseconds of package initialisation at
// every start of the program, and one that stops at the first failed
// keyword makes the model learn one wrong argument per round trip. This one
// knows the keywords that tool schemas use (Moteur's tools' and MCP
// servers', in the draft 2020-12 and draft-07 forms), reports every fault
// of a call at once, and compiles each schema once into a tree of nodes
// that any number of goroutines may read.
//
// Unknown keywords are ignored, as the specification asks; "format",
// "default", "nullable" and the other annotations are ignored too, as they
// were. Not implemented: unevaluatedProperties/unevaluatedItems,
// $dynamicRef, $anchor and references to other documents (refused).

// Schema is a compiled tool schema. It is read-only once compiled.
type Schema struct {
	root *node
}

// typeSet is a set of JSON Schema type names.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeInteger
	typeNumber // includes the integers
	typeString
	typeArray
	typeObject
)

var typeNames = map[string]typeSet{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger, "number": typeNumber,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// node is one compiled (sub)schema. Unset bounds are -1 or nil.
type node struct {
	loc   string // JSON pointer of the schema in its document
	never bool   // the false schema

	types     typeSet
	typeWant  string // the type names as the message shows them
	ref       *node
	enum      []any
	enumWant  string
	hasConst  bool
	constVal  any
	constWant string

	allOf, anyOf, oneOf []*node
	not                 *node
	ifN, thenN, elseN   *node

	// Objects.
	props         []namedNode // sorted by name, so that messages are stable
	propIndex     map[string]*node
	patternProps  []patternNode
	additional    *node // nil: any additional property is allowed
	required      []string
	propertyNames *node
	minProps      int
	maxProps      int
	depRequired   []dependency
	depSchemas    []namedNode

	// Arrays.
	prefix      []*node
	items       *node // the items after prefix
	contains    *node
	minContains int
	maxContains int
	minItems    int
	maxItems    int
	unique      bool

	// Strings, lengths in runes.
	minLength  int
	maxLength  int
	pattern    *regexp.Regexp
	patternSrc string

	// Numbers.
	minimum, maximum, exclMin, exclMax, multipleOf *number
}

type namedNode struct {
	name string
	n    *node
}

type patternNode struct {
	re  *regexp.Regexp
	src string
	n   *node
}

type dependency struct {
	name     string
	required []string
}

func newNode(loc string) *node {
	return &node{loc: loc, minProps: -1, maxProps: -1, minContains: -1, maxContains: -1,
		minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
}

// pointerToken escapes a key for a JSON pointer.
func pointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
