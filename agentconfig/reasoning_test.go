package agentconfig

import (
	"strings"
	"testing"
)

func TestRequestEffort(t *testing.T) {
	for e, want := range map[string]struct {
		noThinking bool
		level      string
	}{
		"": {}, EffortAuto: {}, EffortOff: {noThinking: true},
		EffortMinimal: {level: "minimal"}, EffortHigh: {level: "high"}, EffortMax: {level: "max"},
	} {
		if off, level := RequestEffort(e); off != want.noThinking || level != want.level {
			t.Errorf("RequestEffort(%q) = %v, %q; want %v, %q", e, off, level, want.noThinking, want.level)
		}
	}
}

func TestCheckEffort(t *testing.T) {
	for _, e := range Efforts() {
		if err := CheckEffort(e); err != nil {
			t.Errorf("CheckEffort(%q): %v", e, err)
		}
	}
	if err := CheckEffort("none"); err == nil || !strings.Contains(err.Error(), "off, auto, minimal, low, medium, high, xhigh, max") {
		t.Errorf("CheckEffort(none): %v, want the valid values", err)
	}
}
