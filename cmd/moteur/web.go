package main

import (
	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
)

// webFlags are --web and --no-web: the web tools (web_search, web_fetch)
// switched on or off for this run, over the agent's web_search_enabled and
// the configuration's web: section. The airgapped profile offers them
// whatever is asked.
type webFlags struct {
	on, off bool
}

// addWebFlags adds --web and --no-web to cmd.
func (c *cli) addWebFlags(cmd *cobra.Command, f *webFlags) {
	cmd.Flags().BoolVar(&f.on, "web", false, c.tr("offer the web tools for this run: web_fetch, and web_search when the configuration's web: section\n"+
		"names a search provider (default: the agent's web_search_enabled; without an agent, on when web: is set)"))
	cmd.Flags().BoolVar(&f.off, "no-web", false, c.tr("offer no web tool for this run, whatever the agent and the configuration say"))
}

// checkWebFlags refuses --web with --no-web.
func (c *cli) checkWebFlags(f webFlags) error {
	if f.on && f.off {
		return usageErrorf("%s", c.tr("--web and --no-web contradict each other: give one of them"))
	}
	return nil
}

// apply sets the options the web flags carry.
func (f webFlags) apply(o *app.Options) {
	o.Web, o.NoWeb = f.on, f.off
}
