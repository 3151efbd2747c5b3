package compaction

import (
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"

	"github.com/moteur/moteur/llm"
	"github.com/tiktoken-go/tokenizer"
)

// Overheads of the chat format in cl100k-style accounting: every message
// costs a few tokens of role and separators, and the reply is primed with a
// few more. They are structural, so the calibration scale never applies to
// them.
const (
	perMessageOverhead  = 3
	perConversationTail = 3
)

// Scale bounds: cl100k is off by tens of percent for most models' tokenizers,
// rarely more; a scale outside these bounds means the measurement was wrong.
const (
	minScale = 0.5
	maxScale = 1.5
)

// maxCacheEntries bounds a count cache; past it the cache is dropped
// wholesale, which costs one full recount and no bookkeeping per entry.
const maxCacheEntries = 1 << 16

var (
	codecOnce sync.Once
	codec     tokenizer.Codec
	codecErr  error
)

// sharedCount returns the process-wide cl100k counter. Building the codec
// loads a 100k-entry vocabulary, so it is done once; the codec itself is safe
// for concurrent use (its regexp and vocabulary are read-only).
func sharedCount() func(string) (int, error) {
	codecOnce.Do(func() {
		codec, codecErr = tokenizer.Get(tokenizer.Cl100kBase)
	})
	if codecErr != nil {
		return func(string) (int, error) { return 0, codecErr }
	}
	return codec.Count
}

// countCache holds unscaled message counts by the hash of what is counted.
// A count depends on the text and the counter only, so the estimators of
// the shared counter share one cache: a server that opens a session for
// each turn (moteur serve) would otherwise tokenize the whole history
// again at every turn, and the system prompt and tool definitions in
// every session.
type countCache struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]int
}

func newCountCache() *countCache {
	return &countCache{seed: maphash.MakeSeed(), m: map[uint64]int{}}
}

// sharedCache is the cache of the estimators that count with sharedCount.
var sharedCache = newCountCache()

// Estimator counts tokens with cl100k_base, scaled by a calibration factor
// that applies to text only. It is safe for concurrent use.
type Estimator struct {
	count func(string) (int, error)
	scale atomic.Uint64 // math.Float64bits of the scale
	cache *countCache

	mu  sync.Mutex
	cal calibration // guarded by mu
}

// NewEstimator returns an estimator with scale 1.
func NewEstimator() *Estimator {
	return withCache(sharedCount(), sharedCache)
}

// newEstimator lets tests substitute the counter (the fallback path); its
// counts are its own.
func newEstimator(count func(string) (int, error)) *Estimator {
	return withCache(count, newCountCache())
}

func withCache(count func(string) (int, error), cache *countCache) *Estimator {
	e := &Estimator{count: count, cache: cache}
	e.scale.Store(math.Float64bits(1))
	return e
}

// Scale returns the calibration factor applied to text counts.
func (e *Estimator) Scale() float64 { return math.Float64frombits(e.scale.Load()) }

// SetScale sets the calibration factor, clamped to [0.5, 1.5]; the engine
// restores a session's scale with it. Later samples adjust from this value.
func (e *Estimator) SetScale(f float64) {
	f = clampScale(f)
	e.mu.Lock()
	e.cal.seed(f)
	e.scale.Store(math.Float64bits(f))
	e.mu.Unlock()
}

func clampScale(f float64) float64 {
	if math.IsNaN(f) || f <= 0 {
		return 1
	}
	return math.Min(maxScale, math.Max(minScale, f))
}

// rawText counts s without the scale. When the tokenizer fails, len(s)/4 is
// the usual rule of thumb for English and code, and overcounting slightly is
// the safe side.
func (e *Estimator) rawText(s string) int {
	if s == "" {
		return 0
	}
	n, err := e.count(s)
	if err != nil {
		return (len(s) + 3) / 4
	}
	return n
}

func (e *Estimator) scaled(raw int) int {
	return int(math.Round(float64(raw) * e.Scale()))
}

// Text returns the estimated tokens of s: its BPE count times the scale.
// The count is cached as a message of content s would be (they are equal):
// a server counts the same system prompt in every session.
func (e *Estimator) Text(s string) int {
	return e.scaled(e.cachedRaw(&llm.Message{Content: s}))
}

// rawMessage counts the text of one message, unscaled: content, and the name
// and arguments of each tool call. Reasoning is never sent back, so it costs
// nothing.
func (e *Estimator) rawMessage(m *llm.Message) int {
	n := e.rawText(m.Content)
	for _, c := range m.ToolCalls {
		n += e.rawText(c.Name) + e.rawText(c.Arguments)
	}
	return n
}

// cachedRaw is rawMessage through the cache. The key hashes what is counted,
// so an edited message (a truncated result) gets a fresh count; hashing runs
// at memory speed, BPE at a few MB/s.
func (e *Estimator) cachedRaw(m *llm.Message) int {
	c := e.cache
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(m.Content)
	for _, tc := range m.ToolCalls {
		h.WriteByte(0)
		h.WriteString(tc.Name)
		h.WriteByte(0)
		h.WriteString(tc.Arguments)
	}
	k := h.Sum64()
	c.mu.Lock()
	n, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = e.rawMessage(m)
	c.mu.Lock()
	if len(c.m) >= maxCacheEntries {
		clear(c.m)
	}
	c.m[k] = n
	c.mu.Unlock()
	return n
}

// Message returns the estimated tokens of one message, overhead included and
// the conversation tail excluded, so that sums over slices compose.
func (e *Estimator) Message(m llm.Message) int {
	return perMessageOverhead + e.scaled(e.cachedRaw(&m))
}

// sum is Σ Message over msgs, without the tail.
func (e *Estimator) sum(msgs []llm.Message) int {
	n := 0
	for i := range msgs {
		n += perMessageOverhead + e.scaled(e.cachedRaw(&msgs[i]))
	}
	return n
}

// bound is at least sum(msgs), without tokenizing: a BPE token covers at
// least one byte, so a text counts at most its length in tokens. Due uses
// it to say "not yet" at memory speed to the many turns far from the
// limit.
func (e *Estimator) bound(msgs []llm.Message) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		size := len(m.Content)
		for _, c := range m.ToolCalls {
			size += len(c.Name) + len(c.Arguments)
		}
		n += perMessageOverhead + e.scaled(size)
	}
	return n
}

// Messages returns the estimated prompt tokens of msgs:
// Σ(3 + text + tool call names/arguments) + 3.
func (e *Estimator) Messages(msgs []llm.Message) int {
	return e.sum(msgs) + perConversationTail
}
