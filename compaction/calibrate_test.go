package compaction

import (
	"math"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
)

func TestCalibrate(t *testing.T) {
	added := []llm.Message{{Role: llm.RoleTool, Content: strings.Repeat("the quick brown fox ", 100)}}
	raw := NewEstimator().rawMessage(&added[0]) // 400
	delta := func(ratio float64) int { return int(ratio*float64(raw)) + perMessageOverhead }

	cases := []struct {
		name   string
		s      Sample
		accept bool
	}{
		{"plain", Sample{ReportedDelta: delta(1.2), Added: added}, true},
		{"compacted", Sample{ReportedDelta: delta(1.2), Added: added, Compacted: true}, false},
		{"truncated", Sample{ReportedDelta: delta(1.2), Added: added, Truncated: true}, false},
		{"ratio too high", Sample{ReportedDelta: delta(3.5), Added: added}, false},
		{"ratio too low", Sample{ReportedDelta: delta(0.2), Added: added}, false},
		{"too small", Sample{ReportedDelta: 100, Added: []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("word ", 50)}}}, false},
		{"empty", Sample{ReportedDelta: 500}, false},
	}
	for _, c := range cases {
		e := NewEstimator()
		if got := e.Calibrate(c.s); got != c.accept {
			t.Errorf("%s: accepted = %v, want %v", c.name, got, c.accept)
		}
		want := 1.0
		if c.accept {
			want = 1.2
		}
		if math.Abs(e.Scale()-want) > 0.01 {
			t.Errorf("%s: scale = %v, want %v", c.name, e.Scale(), want)
		}
	}

	// A ratio inside the sample bounds but outside the scale's is clamped.
	e := NewEstimator()
	if !e.Calibrate(Sample{ReportedDelta: delta(2.5), Added: added}) {
		t.Fatal("ratio 2.5 refused")
	}
	if e.Scale() != maxScale {
		t.Errorf("scale = %v, want clamp %v", e.Scale(), maxScale)
	}
	e.SetScale(0.1)
	if e.Scale() != minScale {
		t.Errorf("SetScale(0.1) = %v, want %v", e.Scale(), minScale)
	}
	e.SetScale(math.NaN())
	if e.Scale() != 1 {
		t.Errorf("SetScale(NaN) = %v, want 1", e.Scale())
	}

	// A restored scale is a prior that samples move, not replace.
	e.SetScale(1.0)
	e.Calibrate(Sample{ReportedDelta: delta(1.4), Added: added})
	if s := e.Scale(); s <= 1.0 || s >= 1.4 {
		t.Errorf("scale after seed 1.0 and sample 1.4 = %v, want between", s)
	}
}
