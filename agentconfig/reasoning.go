package agentconfig

import (
	"fmt"
	"strings"
)

// Reasoning efforts (reasoning_effort), weakest first. The request may
// override the agent's value; a provider that lacks a level adjusts it.
const (
	EffortOff     = "off"
	EffortAuto    = "auto"
	EffortMinimal = "minimal"
	EffortLow     = "low"
	EffortMedium  = "medium"
	EffortHigh    = "high"
	EffortXHigh   = "xhigh"
	EffortMax     = "max"
)

// Efforts lists the valid reasoning_effort values in order.
func Efforts() []string {
	return []string{EffortOff, EffortAuto, EffortMinimal, EffortLow, EffortMedium, EffortHigh, EffortXHigh, EffortMax}
}

// CheckEffort accepts a reasoning_effort value: one of Efforts. The
// error lists them.
func CheckEffort(e string) error {
	if !validEffort(e) {
		return fmt.Errorf("unknown reasoning effort %q: want %s", e, strings.Join(Efforts(), ", "))
	}
	return nil
}

func validEffort(e string) bool {
	for _, v := range Efforts() {
		if e == v {
			return true
		}
	}
	return false
}

// Reasoning is the agent's effective reasoning effort: reasoning_effort
// when set, which wins over thinking; else thinking true is auto; else off
// (both absent: no reasoning).
func (c *CustomAgentConfig) Reasoning() string {
	if c.ReasoningEffort != "" {
		return c.ReasoningEffort
	}
	if c.Thinking != nil && *c.Thinking {
		return EffortAuto
	}
	return EffortOff
}

// RequestEffort is how an effective effort goes on a model request:
// off turns thinking off; auto, or none, says nothing (the server
// decides); any other level is asked for as it is (the provider adjusts
// it to the levels its model has).
func RequestEffort(e string) (noThinking bool, level string) {
	switch e {
	case EffortOff:
		return true, ""
	case EffortAuto, "":
		return false, ""
	}
	return false, e
}
