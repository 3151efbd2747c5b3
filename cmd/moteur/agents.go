package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/app"
)

// agentsCmd lists the sub-agents the `agent` tool may start. (The custom
// agents of `moteur serve` are the server's: they are listed there.)
func (c *cli) agentsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "Sub-agents: the agents the agent tool may start",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the sub-agents a session here may start, and the files that cannot be used",
		Long: "List the sub-agents of .moteur/agents/*.md and .claude/agents/*.md in the project, then of\n" +
			"$XDG_CONFIG_HOME/moteur/agents/*.md (Claude Code's sub-agent file format), then the built-ins\n" +
			"general-purpose and explore; first wins. Each line gives the name, where it comes from, its tools\n" +
			"(all: its parent's) and its description; what cannot be used is reported with the file and why.\n\n" +
			"Exit status: 0, 1 when the configuration cannot be read, 2 on bad usage.",
		Example: "  moteur agents list\n  moteur agents list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.agentsList(g, asJSON))
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the sub-agents as one JSON object")
	cmd.AddCommand(list)
	return cmd
}

type agentLine struct {
	Name        string   `json:"name"`
	Source      string   `json:"source"`
	Tools       []string `json:"tools"` // null: every tool of its parent
	Model       string   `json:"model,omitempty"`
	Description string   `json:"description"`
}

func (c *cli) agentsList(g *globalFlags, asJSON bool) error {
	st, err := c.listSettings(g, nil)
	if err != nil {
		return err
	}
	cat, warnings := st.Agents(nil)
	lines := agentLines(cat)
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			Agents   []agentLine `json:"agents"`
			Problems []string    `json:"problems,omitempty"`
		}{lines, warnings})
	}
	if err := c.writeAgents(lines); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(c.stderr, "moteur: "+oneLine(w, 400))
	}
	return nil
}

func agentLines(cat *agents.Catalog) []agentLine {
	var lines []agentLine
	for _, a := range cat.List() {
		lines = append(lines, agentLine{Name: a.Name, Source: a.Source, Tools: a.Tools, Model: a.Model, Description: a.Description})
	}
	return lines
}

// printAgents lists the sub-agents of a chat's session (/agents).
func (c *cli) printAgents(st *app.Settings) error {
	cat, _ := st.Agents(nil)
	return c.writeAgents(agentLines(cat))
}

// writeAgents writes one line a sub-agent: name, source, tools,
// description.
func (c *cli) writeAgents(lines []agentLine) error {
	tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
	for _, a := range lines {
		tools := "all"
		if a.Tools != nil {
			tools = strings.Join(a.Tools, ",")
			if tools == "" {
				tools = "none"
			}
		}
		src := a.Source
		if src != agents.Builtin {
			src = oneLine(src, 60)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, src, oneLine(tools, 60), oneLine(a.Description, 80))
	}
	return tw.Flush()
}
