package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/app"
)

// agentsCmd is the agents: the built-in and custom agents a session runs
// as (moteur run --agent), and the sub-agents the `agent` tool may start.
func (c *cli) agentsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: c.tr("Agents: the built-in and custom agents a session runs as, and the sub-agents"),
		Long: c.tr("Agents are what a session runs as (moteur run --agent NAME, and the agents of moteur serve): the\n" +
			"built-in ones and the custom ones you create here, stored in $MOTEUR_HOME/moteur.db, each with a mode\n" +
			"(quick-answer or smart-reasoning), a model, its knowledge bases, a prompt and the other settings of\n" +
			"seed 000's CustomAgentConfig. Sub-agents are the agents the `agent` tool may start inside a session\n" +
			"(.moteur/agents/*.md, .claude/agents/*.md): agents list shows them too."),
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: c.tr("List the built-in and custom agents, then the sub-agents, each with its kind"),
		Long: c.tr("List the agents a session may run as: the built-in ones (kind builtin), then the custom ones (kind\n" +
			"custom) by name; each line gives the id, the name, the mode and the description. Then the sub-agents\n" +
			"(kind sub-agent) of .moteur/agents/*.md and .claude/agents/*.md in the project, then of\n" +
			"$XDG_CONFIG_HOME/moteur/agents/*.md (Claude Code's sub-agent file format), then the built-ins\n" +
			"general-purpose and explore; first wins. Each gives the name, where it comes from, its tools\n" +
			"(all: its parent's) and its description; what cannot be used is reported with the file and why.\n\n" +
			"Exit status: 0, 1 when the configuration or the database cannot be read, 2 on bad usage."),
		Example: "  moteur agents list\n  moteur agents list --json",
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.agentsList(cmd.Context(), g, asJSON))
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, c.tr("print the agents as one JSON object"))
	cmd.AddCommand(list, c.agentsCreateCmd(g), c.agentsShowCmd(g), c.agentsEditCmd(g), c.agentsRmCmd(g), c.agentsPresetsCmd(g))
	return cmd
}

type agentLine struct {
	Name        string   `json:"name"`
	Source      string   `json:"source"`
	Tools       []string `json:"tools"` // null: every tool of its parent
	Model       string   `json:"model,omitempty"`
	Description string   `json:"description"`
}

// kindSubAgent is the kind of a sub-agent in moteur agents list.
const kindSubAgent = "sub-agent"

// subAgentJSON and agentJSON are the entries of agents list --json: a
// kind, then the sub-agent's fields as before, or the agent's own JSON
// (agentconfig.Agent: id, name, description, builtin, config…).
type subAgentJSON struct {
	Kind string `json:"kind"`
	agentLine
}

type agentJSON struct {
	Kind string `json:"kind"`
	agentconfig.Agent
}

func (c *cli) agentsList(ctx context.Context, g *globalFlags, asJSON bool) error {
	st, err := c.listSettings(g, nil)
	if err != nil {
		return err
	}
	var runnable []agentconfig.Agent
	err = c.withAgents(ctx, false, func(s *agentstore.Store) error {
		runnable, err = allAgents(ctx, s, st.Lang)
		return err
	})
	if err != nil {
		return failure(err)
	}
	cat, warnings := st.Agents(nil)
	lines := agentLines(cat)
	if asJSON {
		entries := make([]any, 0, len(runnable)+len(lines))
		for _, a := range runnable {
			entries = append(entries, agentJSON{Kind: agentKind(a), Agent: a})
		}
		for _, l := range lines {
			entries = append(entries, subAgentJSON{Kind: kindSubAgent, agentLine: l})
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			Agents   []any    `json:"agents"`
			Problems []string `json:"problems,omitempty"`
		}{entries, warnings})
	}
	if err := c.writeRunnable(runnable); err != nil {
		return err
	}
	if len(lines) > 0 {
		fmt.Fprintln(c.stdout)
	}
	if err := c.writeSubAgents(lines, true); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(c.stderr, "moteur: "+oneLine(w, 400))
	}
	return nil
}

// writeRunnable writes one line a built-in or custom agent: kind, id,
// name, mode, description.
func (c *cli) writeRunnable(list []agentconfig.Agent) error {
	tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tID\tNAME\tMODE\tDESCRIPTION")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", agentKind(a), a.ID, oneLine(a.Name, 40), a.Config.AgentMode, oneLine(a.Description, 80))
	}
	return tw.Flush()
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
	return c.writeSubAgents(agentLines(cat), false)
}

// writeSubAgents writes one line a sub-agent: name, source, tools,
// description; with kind, after the kind sub-agent and under a header.
func (c *cli) writeSubAgents(lines []agentLine, kind bool) error {
	tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
	if kind && len(lines) > 0 {
		fmt.Fprintln(tw, "KIND\tNAME\tSOURCE\tTOOLS\tDESCRIPTION")
	}
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
		if kind {
			fmt.Fprintf(tw, "%s\t", kindSubAgent)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, src, oneLine(tools, 60), oneLine(a.Description, 80))
	}
	return tw.Flush()
}
