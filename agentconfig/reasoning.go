package agentconfig

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
