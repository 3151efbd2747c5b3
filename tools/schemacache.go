package tools

import (
	"encoding/json"
	"sync"
)

// maxCachedSchemas bounds the compiled schemas kept for the process: the
// built-in tools' and those of a few MCP servers fit many times over, and
// a server that made up new schemas without end cannot grow the cache past
// it. Past it the cache is dropped wholesale and fills again with the
// schemas in use, which costs one compile each and no bookkeeping.
const maxCachedSchemas = 1024

// compiledSchema is what a tool's schema compiles to: the validator, the
// compacted bytes Definitions sends, and the casts Execute applies. All
// three are read-only once built (a compiled Schema validates from any
// number of goroutines), so every registry that registers the
// same schema shares them.
type compiledSchema struct {
	schema *Schema
	params json.RawMessage
	cast   *castNode
}

// schemaCache holds the compiled schemas by their compacted bytes.
// Compiling is the dearest part of registering a tool, and a server opens
// a session, hence a registry of the same dozen built-in tools, for each
// turn it runs.
var schemaCache = struct {
	sync.RWMutex
	byText map[string]compiledSchema
}{byText: map[string]compiledSchema{}}

// compileCached is compileSchema and buildCast, once per distinct schema.
func compileCached(raw json.RawMessage) (compiledSchema, error) {
	compact, err := compactSchema(raw)
	if err != nil {
		return compiledSchema{}, err
	}
	key := string(compact)
	schemaCache.RLock()
	c, ok := schemaCache.byText[key]
	schemaCache.RUnlock()
	if ok {
		return c, nil
	}
	s, params, err := compileSchema(compact)
	if err != nil {
		return compiledSchema{}, err
	}
	c = compiledSchema{schema: s, params: params, cast: buildCast(s)}
	schemaCache.Lock()
	if len(schemaCache.byText) >= maxCachedSchemas {
		clear(schemaCache.byText)
	}
	schemaCache.byText[key] = c
	schemaCache.Unlock()
	return c, nil
}
