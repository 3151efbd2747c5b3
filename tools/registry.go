package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
)

// DefaultTimeout bounds one call when Config.Timeout is zero and the tool
// does not implement TimeoutOverrider.
const DefaultTimeout = 60 * time.Second

// ErrDuplicateTool is returned, wrapped with the name, when a tool is
// registered under a name already taken.
var ErrDuplicateTool = errors.New("duplicate tool name")

// Config sets a Registry's limits. Zero values select the defaults.
type Config struct {
	// MaxOutput is the number of runes a result keeps (0: DefaultMaxOutput).
	MaxOutput int
	// Timeout is the deadline of one call (0: DefaultTimeout).
	Timeout time.Duration
	// Legacy maps retired tool names to their successors (nil:
	// DefaultLegacy(); an empty map turns the mapping off).
	Legacy map[string]string
}

// Registry holds the tools offered to the model and runs their calls through
// one pipeline: parse (with repair), cast, validate, execute under a
// deadline, truncate.
type Registry struct {
	maxOutput int
	timeout   time.Duration
	legacy    map[string]string // never written after NewRegistry

	mu     sync.RWMutex
	static map[string]*entry // the tools of Register
	groups []*groupState     // in the order of AddGroup
	tools  map[string]*entry // what is offered: static, then the groups'
	names  []string          // sorted, kept in step with tools
	defs   []llm.ToolDef     // built on demand; nil after a change
	// rejected are the group entries a taken name keeps out of tools, so
	// that each is reported once.
	rejected map[*entry]bool

	ngroups atomic.Int32 // len(groups), read without the lock
	syncMu  sync.Mutex   // one group sync at a time; guards groupState.failed
}

// entry is a registered tool with what registration computed once.
type entry struct {
	name   string
	tool   Tool
	schema *Schema
	params json.RawMessage // compacted schema, as sent to providers
	cast   *castNode       // nil when no argument can need a cast
}

// NewRegistry returns an empty registry configured by cfg.
func NewRegistry(cfg Config) *Registry {
	r := &Registry{
		maxOutput: cfg.MaxOutput,
		timeout:   cfg.Timeout,
		legacy:    copyLegacy(cfg.Legacy),
		static:    map[string]*entry{},
		tools:     map[string]*entry{},
	}
	if r.maxOutput <= 0 {
		r.maxOutput = DefaultMaxOutput
	}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	return r
}

// Register adds t. The first tool to claim a name keeps it: a later one (an
// MCP server's, typically) is refused with ErrDuplicateTool rather than
// silently replacing a built-in. A tool of a Group never holds a name
// against Register: it gives the name up. The schema is compiled now so
// that a broken one fails at start-up, not at the model's first call.
func (r *Registry) Register(t Tool) error {
	if isNil(t) {
		return errors.New("register tool: nil tool")
	}
	name := t.Name()
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("register tool (%T): empty name", t)
	}
	if r.has(name) {
		return fmt.Errorf("register tool %q: %w", name, ErrDuplicateTool)
	}
	c, err := compileCached(t.Schema())
	if err != nil {
		return fmt.Errorf("register tool %q: invalid schema: %w", name, err)
	}
	e := &entry{name: name, tool: t, schema: c.schema, params: c.params, cast: c.cast}

	r.mu.Lock()
	// Checked again: another Register may have won the name while the
	// schema compiled outside the lock.
	if _, ok := r.static[name]; ok {
		r.mu.Unlock()
		return fmt.Errorf("register tool %q: %w", name, ErrDuplicateTool)
	}
	r.static[name] = e
	var displaced []rejection
	if _, held := r.tools[name]; held {
		// A group's tool had the name: the view is rebuilt without it.
		displaced = r.rebuildLocked()
	} else {
		r.tools[name] = e
		i, _ := slices.BinarySearch(r.names, name)
		r.names = slices.Insert(r.names, i, name)
		r.defs = nil
	}
	r.mu.Unlock()
	report(displaced)
	return nil
}

func (r *Registry) has(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.static[name]
	return ok
}

// AddGroup adds a set of tools that may change during the session. Its
// tools are read at the next lookup, and again whenever its Generation
// changes; see Group for who wins a name.
func (r *Registry) AddGroup(g Group) error {
	if g == nil || isNilValue(g) {
		return ErrNilGroup
	}
	r.mu.Lock()
	r.groups = append(r.groups, &groupState{g: g})
	r.ngroups.Add(1)
	r.mu.Unlock()
	return nil
}

// refresh brings the groups' tools up to date. Without a change it costs
// one Generation call per group under the read lock.
func (r *Registry) refresh() {
	if r.ngroups.Load() == 0 || !r.stale() {
		return
	}
	var rejected []rejection
	r.syncMu.Lock()
	r.mu.RLock()
	groups := slices.Clone(r.groups)
	r.mu.RUnlock()
	for _, gs := range groups {
		rejected = append(rejected, r.syncGroup(gs)...)
	}
	r.syncMu.Unlock()
	// Outside every lock: a warner may well look the registry up.
	report(rejected)
}

func (r *Registry) stale() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, gs := range r.groups {
		if !gs.synced || gs.g.Generation() != gs.gen {
			return true
		}
	}
	return false
}

// syncGroup takes in the group's current tools, under syncMu. Schemas
// compile outside r.mu, so lookups go on meanwhile; a tool returned again
// keeps its compiled entry (or its compile error).
func (r *Registry) syncGroup(gs *groupState) []rejection {
	gen := gs.g.Generation()
	r.mu.RLock()
	fresh, old := gs.synced && gs.gen == gen, gs.entries
	r.mu.RUnlock()
	if fresh {
		return nil
	}
	known := make(map[Tool]*entry, len(old))
	for _, e := range old {
		if pointerTool(e.tool) {
			known[e.tool] = e
		}
	}
	failed := map[Tool]error{}
	var entries []*entry
	var rejected []rejection
	for _, t := range gs.g.Tools() {
		e, err := r.groupEntry(gs, t, known)
		if err != nil {
			again := false
			if pointerTool(t) {
				_, again = gs.failed[t]
				failed[t] = err
			}
			if !again {
				rejected = append(rejected, rejection{gs: gs, t: t, err: err})
			}
			continue
		}
		entries = append(entries, e)
	}
	gs.failed = failed
	r.mu.Lock()
	gs.synced, gs.gen, gs.entries = true, gen, entries
	rejected = append(rejected, r.rebuildLocked()...)
	r.mu.Unlock()
	return rejected
}

// groupEntry compiles one tool of a group, or reuses what an earlier
// generation compiled (or failed to) for the same tool.
func (r *Registry) groupEntry(gs *groupState, t Tool, known map[Tool]*entry) (*entry, error) {
	if t == nil || isNilValue(t) {
		return nil, errors.New("register tool: nil tool")
	}
	if pointerTool(t) {
		if e, ok := known[t]; ok {
			return e, nil
		}
		if err, ok := gs.failed[t]; ok {
			return nil, err
		}
	}
	name := t.Name()
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("register tool (%T): empty name", t)
	}
	c, err := compileCached(t.Schema())
	if err != nil {
		return nil, fmt.Errorf("register tool %q: invalid schema: %w", name, err)
	}
	return &entry{name: name, tool: t, schema: c.schema, params: c.params, cast: c.cast}, nil
}

// rebuildLocked recomputes what is offered from the static tools and the
// groups' entries, under r.mu. It returns the group entries newly kept
// out by a taken name.
func (r *Registry) rebuildLocked() []rejection {
	view := make(map[string]*entry, len(r.tools))
	for n, e := range r.static {
		view[n] = e
	}
	var out []rejection
	kept := map[*entry]bool{}
	for _, gs := range r.groups {
		for _, e := range gs.entries {
			if _, taken := view[e.name]; taken {
				kept[e] = true
				if !r.rejected[e] {
					out = append(out, rejection{gs: gs, t: e.tool, err: fmt.Errorf("register tool %q: %w", e.name, ErrDuplicateTool)})
				}
				continue
			}
			view[e.name] = e
		}
	}
	r.rejected = kept
	r.tools = view
	r.names = slices.Sorted(maps.Keys(view))
	r.defs = nil
	return out
}

// pointerTool reports whether t can key a map safely: a pointer compares
// by identity, while an arbitrary value type may hold an uncomparable
// field and panic.
func pointerTool(t Tool) bool {
	return t != nil && reflect.TypeOf(t).Kind() == reflect.Pointer
}

// isNil also catches a typed nil pointer, whose methods would panic on the
// first call.
func isNil(t Tool) bool {
	if t == nil {
		return true
	}
	return isNilValue(t)
}

func isNilValue(x any) bool {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// Lookup returns the tool registered under name, or under the successor of a
// legacy name. A tool registered under the old name itself wins over the
// mapping. What is returned is the successor itself, so its optional
// interfaces (Retrieval, Isolated, …) answer for a call made under the old
// name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.lookup(name)
	if !ok {
		return nil, false
	}
	return e.tool, true
}

func (r *Registry) lookup(name string) (*entry, bool) {
	r.refresh()
	r.mu.RLock()
	defer r.mu.RUnlock()
	for range maxLegacyHops {
		if e, ok := r.tools[name]; ok {
			return e, true
		}
		next, ok := r.legacy[name]
		if !ok {
			return nil, false
		}
		name = next
	}
	return nil, false
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.refresh()
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.names)
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.refresh()
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// Definitions returns the tool definitions sorted by name. Providers cache
// prompts by prefix and the tools come first, so the payload must be
// byte-identical from one request to the next whatever the registration
// order; it is built once per registration change and then reused. The
// slice is shared: callers must not modify it (clone it to edit).
func (r *Registry) Definitions() []llm.ToolDef {
	r.refresh()
	r.mu.RLock()
	defs := r.defs
	r.mu.RUnlock()
	if defs == nil {
		r.mu.Lock()
		if r.defs == nil {
			r.defs = make([]llm.ToolDef, 0, len(r.names))
			for _, n := range r.names {
				e := r.tools[n]
				r.defs = append(r.defs, llm.ToolDef{Name: n, Description: e.tool.Description(), Parameters: e.params})
			}
		}
		defs = r.defs
		r.mu.Unlock()
	}
	// Shared, not copied: a request is built every round, and its tools
	// part must stay byte-identical anyway (providers cache prefixes).
	// Callers that edit it clone it first.
	return slices.Clip(defs)
}

// Execute runs call and always returns a Result: unknown tools, unusable
// arguments, tool errors, timeouts and panics all become error results the
// model can read and react to. Every result, errors included, is truncated
// to the configured size.
func (r *Registry) Execute(ctx context.Context, call llm.ToolCall) (res Result) {
	defer func() {
		// Last resort for a bug in the pipeline itself (the tool's own
		// panics are caught closer, in run).
		if p := recover(); p != nil {
			res = r.finish(Result{Content: fmt.Sprintf("tool %q: internal error: %v", call.Name, p), IsError: true})
		}
	}()
	e, ok := r.lookup(call.Name)
	if !ok {
		return r.finish(analyzeError(r.unknownMessage(call.Name)))
	}
	args, err := e.prepare(call.Arguments)
	if err != nil {
		return r.finish(analyzeError(err.Error()))
	}
	return r.finishFor(e.tool, r.run(ctx, e, args))
}

func (r *Registry) unknownMessage(name string) string {
	names := r.Names()
	list := strings.Join(names, ", ")
	if len(names) == 0 {
		list = "(none)"
	}
	return fmt.Sprintf(i18n.T(i18n.EN, i18n.UnknownTool), name, list)
}

// analyzeError ends msg with the suffix that tells the model the fault is in
// its call, so it changes the call instead of repeating it.
func analyzeError(msg string) Result {
	return Result{Content: msg + "\n" + i18n.AnalyzeErrorSuffix, IsError: true}
}

func (r *Registry) finish(res Result) Result { return r.cut(res, r.maxOutput) }

// finishFor truncates a tool's result to the tool's own limit when it sets
// one (a file page is larger than the default), else the registry's.
func (r *Registry) finishFor(t Tool, res Result) Result {
	if l, ok := t.(OutputLimiter); ok && l.MaxOutput() > 0 {
		return r.cut(res, l.MaxOutput())
	}
	return r.finish(res)
}

func (r *Registry) cut(res Result, max int) Result {
	c, cut := Truncate(res.Content, max)
	res.Content = c
	res.Truncated = res.Truncated || cut
	return res
}

// prepare turns the model's argument text into the JSON object the tool
// receives: parsed (and repaired if need be), cast, then validated.
func (e *entry) prepare(text string) (json.RawMessage, error) {
	obj, repaired, err := parseArgs(text)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", e.name, err)
	}
	_, cast := e.cast.cast(obj)
	if err := e.schema.Validate(any(obj)); err != nil {
		return nil, fmt.Errorf("invalid arguments for tool %q:\n%s", e.name, validationMessage(err))
	}
	if !repaired && !cast {
		// Unchanged: the model's own bytes, which keep its key order.
		if t := strings.TrimSpace(text); t != "" {
			return json.RawMessage(t), nil
		}
		return json.RawMessage("{}"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The arguments go to a tool, not a web page: "<" must stay "<".
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, fmt.Errorf("tool %q: re-encoding arguments: %w", e.name, err)
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// outcome carries a tool's return values across goroutines.
type outcome struct {
	res Result
	err error
}

// run executes the tool under its deadline. The tool runs in its own
// goroutine so that one ignoring its context still cannot hold the turn past
// the deadline; such a goroutine is abandoned and ends when the tool returns.
func (r *Registry) run(ctx context.Context, e *entry, args json.RawMessage) Result {
	timeout := r.timeout
	if o, ok := e.tool.(TimeoutOverrider); ok {
		if d := o.Timeout(); d > 0 {
			timeout = d
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	done := make(chan outcome, 1) // buffered: an abandoned call must not block
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("tool %q panicked: %v", e.name, p)}
			}
		}()
		res, err := e.tool.Execute(callCtx, args)
		done <- outcome{res: res, err: err}
	}()

	var o outcome
	select {
	case o = <-done:
	case <-callCtx.Done():
		// A call that finished at the deadline keeps its result.
		select {
		case o = <-done:
		default:
			return r.interrupted(ctx, callCtx, e, timeout)
		}
	}
	if o.err != nil {
		if callCtx.Err() != nil && errors.Is(o.err, callCtx.Err()) {
			return r.interrupted(ctx, callCtx, e, timeout)
		}
		msg := o.err.Error()
		if o.res.Content != "" && o.res.Content != msg {
			msg += "\n\n" + o.res.Content
		}
		// Classified stays: a failure can still tell something of a
		// classified file (where an edit's text occurs, a line count).
		return Result{Content: msg, IsError: true, Display: o.res.Display, Truncated: o.res.Truncated,
			Classified: o.res.Classified}
	}
	if o.res.IsError && o.res.Content == "" {
		o.res.Content = fmt.Sprintf("tool %q failed without a message", e.name)
	}
	return o.res
}

// interrupted tells the registry's own deadline apart from the caller
// cancelling the turn: only the first is the tool's fault.
func (r *Registry) interrupted(parent, callCtx context.Context, e *entry, timeout time.Duration) Result {
	if parent.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		return Result{Content: fmt.Sprintf("tool %s timed out after %s", e.name, formatDuration(timeout)), IsError: true}
	}
	return Result{Content: fmt.Sprintf("tool %s canceled: %v", e.name, context.Cause(parent)), IsError: true}
}

// formatDuration writes whole seconds as "60s" rather than time's "1m0s".
func formatDuration(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
