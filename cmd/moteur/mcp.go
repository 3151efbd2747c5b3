package main

import "github.com/spf13/cobra"

// mcpCmd groups the MCP commands: the servers a session uses (list, login)
// and Moteur itself as a server (serve).
func (c *cli) mcpCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: c.tr("MCP: list the configured servers (list), log in to one (login), serve the knowledge bases to MCP clients (serve)"),
		Args:  c.noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(c.mcpListCmd(g), c.mcpLoginCmd(g), c.mcpServeCmd(g))
	return cmd
}
