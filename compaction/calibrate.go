package compaction

import (
	"math"

	"github.com/moteur/moteur/llm"
)

// Exclusion bounds of a calibration sample. A ratio outside [0.3, 3] is not a
// tokenizer difference but a measurement that mixed in something else (a
// changed system prompt, cached tools, a server that counts differently); a
// sample under 256 tokens is dominated by the per-message overheads, whose
// true value we do not know.
const (
	minRatio         = 0.3
	maxRatio         = 3.0
	minSampleTokens  = 256
	calibrationDecay = 0.9  // weight left to older samples at each new one
	seedWeight       = 1024 // tokens of evidence a restored scale counts for
)

// Sample is one calibration measurement between two consecutive requests of
// the same turn (same tools, same system prompt): the prompt tokens reported
// for the second minus those reported for the first, and the messages added
// in between.
type Sample struct {
	// ReportedDelta is the growth of the reported prompt tokens.
	ReportedDelta int
	// Added are the messages the second request has and the first had not.
	Added []llm.Message
	// Compacted is true when a compaction happened in between: the delta then
	// measures the compaction, not the added messages.
	Compacted bool
	// Truncated is true when a tool output in Added was truncated for the
	// request: the server counted a different text than Added holds.
	Truncated bool
}

// calibration is a token-weighted mean of the accepted ratios, decayed so
// that the scale follows a change of model without forgetting at once.
type calibration struct {
	reported float64 // Σ weighted reported text tokens
	raw      float64 // Σ weighted estimated text tokens
}

func (c *calibration) seed(scale float64) {
	c.raw = seedWeight
	c.reported = seedWeight * scale
}

// Calibrate records one measurement and reports whether it was accepted.
// Only text is scaled, so the known per-message overheads are taken off the
// reported delta before the ratio is computed.
func (e *Estimator) Calibrate(s Sample) bool {
	if s.Compacted || s.Truncated || len(s.Added) == 0 {
		return false
	}
	raw := 0
	for i := range s.Added {
		raw += e.rawMessage(&s.Added[i])
	}
	overhead := perMessageOverhead * len(s.Added)
	if raw+overhead < minSampleTokens || raw == 0 {
		return false
	}
	text := float64(s.ReportedDelta - overhead)
	ratio := text / float64(raw)
	if ratio < minRatio || ratio > maxRatio {
		return false
	}
	e.mu.Lock()
	e.cal.reported = e.cal.reported*calibrationDecay + text
	e.cal.raw = e.cal.raw*calibrationDecay + float64(raw)
	// Stored under the lock so that a concurrent SetScale and Calibrate
	// leave the scale and the sums agreeing.
	e.scale.Store(math.Float64bits(clampScale(e.cal.reported / e.cal.raw)))
	e.mu.Unlock()
	return true
}
