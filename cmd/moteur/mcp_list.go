package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
)

func (c *cli) mcpListCmd(g *globalFlags) *cobra.Command {
	var asJSON, trust bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: c.tr("List the MCP servers a session here would use, and start them to check"),
		Long: c.tr("List the MCP servers of the project's .mcp.json and of your own file ($XDG_CONFIG_HOME/moteur/mcp.json):\n" +
			"each one's transport, where it is configured, whether it is trusted, its state (connected, down,\n" +
			"untrusted, disabled), its tool count and why it is not running. The servers that may start are\n" +
			"started, as a session would, and stopped again; a project's file that is not trusted is not run\n" +
			"(moteur run or chat asks on a terminal; --trust-project, here or there, trusts it).\n\n" +
			"Exit status: 0, whatever the servers' state; 1 when a file cannot be read; 2 on bad usage."),
		Example: "  moteur mcp list\n  moteur mcp list --json | jq '.servers[] | select(.state != \"connected\")'",
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.mcpList(cmd.Context(), g, asJSON, trust))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the report as one JSON object"))
	cmd.Flags().BoolVar(&trust, "trust-project", false, c.tr("trust the project's .mcp.json as it is now, and remember it, so that its servers start"))
	return cmd
}

func (c *cli) mcpList(ctx context.Context, g *globalFlags, asJSON, trust bool) error {
	st, err := c.listSettings(g, func(o *app.Options) { o.TrustProject = trust })
	if err != nil {
		return err
	}
	rep, err := st.ListMCP(ctx)
	if err != nil {
		return appError(err)
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false)
		if rep.Servers == nil {
			rep.Servers = []app.MCPServerStatus{}
		}
		return enc.Encode(rep)
	}
	c.printMCP(rep)
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%s", strings.Join(rep.Errors, "; "))
	}
	return nil
}

// printMCP writes the report as a table, then what the files said.
func (c *cli) printMCP(rep app.MCPReport) {
	if len(rep.Servers) == 0 && len(rep.Errors) == 0 {
		fmt.Fprintln(c.stdout, c.tr("no MCP server configured (.mcp.json in the project, or $XDG_CONFIG_HOME/moteur/mcp.json)"))
	}
	if len(rep.Servers) > 0 {
		tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTRANSPORT\tTRUSTED\tSTATE\tTOOLS\tSOURCE")
		for _, s := range rep.Servers {
			trusted := "yes"
			if !s.Trusted {
				trusted = "no"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.Name, s.Transport, trusted, s.State, s.Tools, s.Source)
		}
		tw.Flush()
		for _, s := range rep.Servers {
			if s.Error != "" {
				fmt.Fprintf(c.stdout, "%s: %s\n", s.Name, oneLine(s.Error, 400))
			}
		}
	}
	for _, w := range rep.Warnings {
		c.warn([]string{oneLine(w, 400)})
	}
}
