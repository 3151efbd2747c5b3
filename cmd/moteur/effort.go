package main

import (
	"github.com/spf13/cobra"

	"github.com/moteur/moteur/agentconfig"
)

// addEffortFlag adds --effort, the reasoning effort of this run's requests:
// it wins over the agent's reasoning_effort and thinking, as seed 000 lets
// a request do. "" (not given) leaves the agent's.
func (c *cli) addEffortFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().Var(newChoice(p, "", agentconfig.Efforts()...), "effort",
		c.tr("reasoning effort of the model for this run, over the agent's: off, auto, minimal, low, medium,\n"+
			"high, xhigh or max (a level the model lacks is adjusted to the nearest it has)"))
}
