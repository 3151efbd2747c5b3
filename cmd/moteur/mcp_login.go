package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/mcp/oauth"
)

func (c *cli) mcpLoginCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "login NAME",
		Short: c.tr("Log in to an MCP server that asks for OAuth"),
		Long: c.tr("Log in to the HTTP MCP server NAME of the configuration, as the MCP authorization specification says:\n" +
			"Moteur finds the server's authorization server, registers itself there when no client id is\n" +
			"configured, prints the URL to open (and opens it on a desktop), waits up to 5 minutes for the\n" +
			"browser to come back to a loopback address, and exchanges the code (PKCE) for tokens. The tokens\n" +
			"are kept encrypted under the data directory (mcp-oauth/, mode 0600) and refreshed by themselves;\n" +
			"a session that meets a server whose login expired for good says to run this again.\n" +
			"Every host involved must pass the allowlists and the organisation policy.\n\n" +
			"Exit status: 0 when logged in, 1 on an error, 2 on bad usage."),
		Example: "  moteur mcp login notes",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.mcpLogin(cmd.Context(), g, args[0]))
		},
	}
}

func (c *cli) mcpLogin(ctx context.Context, g *globalFlags, name string) error {
	st, err := c.listSettings(g, nil)
	if err != nil {
		return err
	}
	var open func(context.Context, string) error
	if isTerminal(c.stderr) {
		open = oauth.OpenSystemBrowser
	}
	return appError(st.LoginMCP(ctx, name, c.stderr, open))
}
