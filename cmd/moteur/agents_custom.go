package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/i18n"
)

// createFlags are the settings moteur agents create takes on its command
// line; they apply after --preset and --file.
type createFlags struct {
	preset, mode, model, prompt, promptFile, access, file, description string
	temperature                                                        float64
	maxTokens                                                          int
	kb                                                                 []string
	asJSON                                                             bool
}

func (c *cli) agentsCreateCmd(g *globalFlags) *cobra.Command {
	var f createFlags
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: c.tr("Create a custom agent"),
		Long: c.tr("Create a custom agent, stored in $MOTEUR_HOME/moteur.db. Its settings come from --preset (a type\n" +
			"preset: moteur agents presets), then --file (an agent as moteur agents show --json prints it, in\n" +
			"JSON or YAML), then the flags; what none sets gets seed 000's defaults (temperature 0.7, 2048\n" +
			"tokens for a quick answer and 4096 for smart reasoning, access auto_write, 10 iterations…).\n" +
			"NAME may be left out when the file has a name. Run a session as it with moteur run --agent NAME.\n\n" +
			"Exit status: 0, 1 when the database cannot be written, 2 on bad usage, an invalid setting (named)\n" +
			"or a name already taken."),
		Example: "  moteur agents create support --preset rag-qa --kb docs --prompt \"Answer as our support team.\"\n" +
			"  moteur agents create faq --mode quick-answer --model gpt-4o-mini --temperature 0.2 --max-tokens 1024\n" +
			"  moteur agents create --file analyst.yaml",
		Args: c.rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.agentsCreate(cmd, g, args, &f))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.preset, "preset", "", c.tr("start from a type preset: rag-qa, data-analysis or custom (moteur agents presets)"))
	fl.StringVar(&f.mode, "mode", "", c.tr("agent_mode: quick-answer (one answer from the bases) or smart-reasoning (the agent loop)"))
	fl.StringVar(&f.model, "model", "", c.tr("model_id: a provider of the configuration, or a model name"))
	fl.Float64Var(&f.temperature, "temperature", 0, c.tr("temperature, 0 to 2 (default 0.7)"))
	fl.IntVar(&f.maxTokens, "max-tokens", 0, c.tr("max_completion_tokens (default by mode)"))
	fl.StringArrayVar(&f.kb, "kb", nil, c.tr("a knowledge base the agent uses (repeat; default: every base)"))
	fl.StringVar(&f.prompt, "prompt", "", c.tr("system_prompt: added to Moteur's own prompt"))
	fl.StringVar(&f.promptFile, "prompt-file", "", c.tr("read system_prompt from this file"))
	fl.StringVar(&f.access, "access-level", "", c.tr("access_level: read_only, confirm or auto_write (default auto_write)"))
	fl.StringVar(&f.description, "description", "", c.tr("what the agent is for"))
	fl.StringVar(&f.file, "file", "", c.tr("read the agent from this .json or .yaml file"))
	fl.BoolVar(&f.asJSON, "json", false, c.tr("print the new agent as JSON"))
	cmd.MarkFlagsMutuallyExclusive("prompt", "prompt-file")
	return cmd
}

func (c *cli) agentsCreate(cmd *cobra.Command, g *globalFlags, args []string, f *createFlags) error {
	ctx := cmd.Context()
	st, err := c.listSettings(g, nil)
	if err != nil {
		return err
	}
	// Temperature -1 is "unset": EnsureDefaults makes it 0.7, while 0 is a
	// temperature one may choose.
	a := agentconfig.Agent{Config: agentconfig.CustomAgentConfig{Temperature: -1}}
	if f.preset != "" {
		p, err := agentconfig.PresetByID(f.preset, st.Lang)
		if err != nil {
			return usageErrorf(c.tr("--preset %q: no such preset (moteur agents presets lists them)"), f.preset)
		}
		p.Apply(&a.Config)
	}
	if f.file != "" {
		if err := readAgentFile(c.lang, f.file, &a); err != nil {
			return err
		}
	}
	if len(args) == 1 {
		a.Name = args[0]
	}
	if strings.TrimSpace(a.Name) == "" {
		return usageErrorf("%s", c.tr("agents create: give the agent a NAME (or a name in --file)"))
	}
	if err := f.apply(cmd, &a); err != nil {
		return err
	}
	return c.withAgents(ctx, true, func(s *agentstore.Store) error {
		created, err := s.Create(ctx, a)
		if err != nil {
			return agentError(c.lang, err)
		}
		if f.asJSON {
			return c.writeJSON(created)
		}
		_, err = fmt.Fprintf(c.stdout, c.tr("Created agent %s (%s, %s). Run it with: moteur run --agent %s PROMPT\n"),
			created.Name, created.ID, created.Config.AgentMode, shellWord(created.Name))
		return err
	})
}

// apply sets what the flags given on the command line say.
func (f *createFlags) apply(cmd *cobra.Command, a *agentconfig.Agent) error {
	fl := cmd.Flags()
	if fl.Changed("mode") {
		a.Config.AgentMode = f.mode
	}
	if fl.Changed("model") {
		a.Config.ModelID = f.model
	}
	if fl.Changed("temperature") {
		a.Config.Temperature = f.temperature
	}
	if fl.Changed("max-tokens") {
		a.Config.MaxCompletionTokens = f.maxTokens
	}
	if fl.Changed("kb") {
		a.Config.KnowledgeBases = f.kb
		a.Config.KBSelectionMode = agentconfig.SelectSelected
	}
	if fl.Changed("prompt") {
		a.Config.SystemPrompt = f.prompt
	}
	if f.promptFile != "" {
		b, err := os.ReadFile(f.promptFile)
		if err != nil {
			return usageErrorf("--prompt-file: %v", err)
		}
		a.Config.SystemPrompt = string(b)
	}
	if fl.Changed("access-level") {
		a.Config.AccessLevel = f.access
	}
	if fl.Changed("description") {
		a.Description = f.description
	}
	return nil
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (c *cli) agentsShowCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show REF",
		Short: c.tr("Show an agent: built-in or custom, by id or name"),
		Long: c.tr("Show an agent and its whole configuration (defaults applied). REF is an id or a name: a built-in\n" +
			"agent's id, then a custom agent's id, then a custom agent's name (case ignored), then a built-in's\n" +
			"name. --json prints what --file reads back."),
		Example: "  moteur agents show support\n  moteur agents show builtin-smart-reasoning --json > mine.json",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := c.listSettings(g, nil)
			if err != nil {
				return err
			}
			return failure(c.withAgents(cmd.Context(), false, func(s *agentstore.Store) error {
				a, err := resolveAgent(cmd.Context(), s, args[0], st.Lang)
				if err != nil {
					return err
				}
				if asJSON {
					return c.writeJSON(a)
				}
				return c.writeAgent(a)
			}))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the agent as JSON"))
	return cmd
}

// writeAgent prints an agent for a person: who it is, then its config as
// indented JSON (every field, under its wire name).
func (c *cli) writeAgent(a agentconfig.Agent) error {
	tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, c.tr("ID\t%s\nName\t%s\nKind\t%s\nMode\t%s\n"), a.ID, a.Name, agentKind(a), a.Config.AgentMode)
	if a.Description != "" {
		fmt.Fprintf(tw, c.tr("Description\t%s\n"), oneLine(a.Description, 200))
	}
	if !a.Created.IsZero() {
		fmt.Fprintf(tw, c.tr("Created\t%s\nUpdated\t%s\n"), a.Created.Local().Format(time.DateTime), a.Updated.Local().Format(time.DateTime))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, c.tr("Config:"))
	enc := newIndentedJSON(c.stdout)
	return enc.Encode(a.Config)
}

func (c *cli) agentsEditCmd(g *globalFlags) *cobra.Command {
	var sets []string
	var file string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "edit REF",
		Short: c.tr("Change a custom agent"),
		Long: c.tr("Change a custom agent: --file replaces the settings the file has (an agent as moteur agents show\n" +
			"--json prints it, JSON or YAML), then each --set key=value, in order. Keys are name, description and\n" +
			"the config's fields under their wire names (moteur agents show --json lists them). Lists are\n" +
			"comma-separated (knowledge_bases=docs,rh; an empty value is the empty list; allowed_tools=null is the\n" +
			"default tools). Listing knowledge_bases, mcp_services or selected_skills sets their selection mode to\n" +
			"selected unless the edit sets it too; changing agent_mode picks the new mode's default\n" +
			"max_completion_tokens when the agent had the old one's.\n" +
			"Built-in agents cannot be changed: create one from them with moteur agents show ID --json > f.json\n" +
			"and moteur agents create NAME --file f.json."),
		Example: "  moteur agents edit support --set temperature=0.3 --set knowledge_bases=docs,rh\n" +
			"  moteur agents edit support --set agent_mode=smart-reasoning --set access_level=confirm\n" +
			"  moteur agents edit support --file support.yaml",
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(sets) == 0 && file == "" {
				return usageErrorf("%s", c.tr("agents edit: nothing to change: give --set key=value or --file"))
			}
			st, err := c.listSettings(g, nil)
			if err != nil {
				return err
			}
			return failure(c.withAgents(cmd.Context(), false, func(s *agentstore.Store) error {
				return c.agentsEdit(cmd.Context(), s, args[0], st.Lang, file, sets, asJSON)
			}))
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, c.tr("key=value: set one setting (repeat)"))
	cmd.Flags().StringVar(&file, "file", "", c.tr("read settings from this .json or .yaml file"))
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the changed agent as JSON"))
	return cmd
}

func (c *cli) agentsEdit(ctx context.Context, s *agentstore.Store, ref string, l i18n.Lang, file string, sets []string, asJSON bool) error {
	a, err := resolveAgent(ctx, s, ref, l)
	if err != nil {
		return err
	}
	if a.Builtin {
		return agentError(c.lang, fmt.Errorf(c.tr("agent %s: %w: it cannot be changed; copy it with moteur agents show %s --json > f.json and moteur agents create NAME --file f.json"),
			a.ID, agentstore.ErrBuiltin, a.ID))
	}
	oldMode, oldDefault := a.Config.AgentMode, defaultMaxTokens(a.Config)
	if file != "" {
		if err := readAgentFile(c.lang, file, &a); err != nil {
			return err
		}
	}
	setKeys := map[string]bool{}
	for _, kv := range sets {
		key, err := applySet(c.lang, &a, kv)
		if err != nil {
			return err
		}
		setKeys[key] = true
	}
	// Listing bases, MCP services or skills selects them, unless the edit
	// sets the selection mode itself (the stored mode is often the default
	// "all" or "none", which would ignore the list).
	for list, mode := range selectionModes {
		if setKeys[list] && !setKeys[mode] && listLen(a.Config, list) > 0 {
			if _, err := applySet(c.lang, &a, mode+"="+agentconfig.SelectSelected); err != nil {
				return err
			}
		}
	}
	// A budget that was the old mode's default follows the mode; one the
	// user chose stays.
	if a.Config.AgentMode != oldMode && !setKeys["max_completion_tokens"] && a.Config.MaxCompletionTokens == oldDefault {
		a.Config.MaxCompletionTokens = 0
	}
	up, err := s.Update(ctx, a)
	if err != nil {
		return agentError(c.lang, err)
	}
	if asJSON {
		return c.writeJSON(up)
	}
	_, err = fmt.Fprintf(c.stdout, c.tr("Updated agent %s (%s).\n"), up.Name, up.ID)
	return err
}

func (c *cli) agentsRmCmd(g *globalFlags) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:     "rm REF",
		Aliases: []string{"remove"},
		Short:   c.tr("Remove a custom agent"),
		Long: c.tr("Remove a custom agent (by id or name). Sessions that ran as it keep their events. Asks for\n" +
			"confirmation on a terminal; otherwise --yes is required. Built-in agents cannot be removed."),
		Example: "  moteur agents rm support\n  moteur agents rm ag-0123456789abcdef --yes",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes && !c.stdinTTY {
				return usageErrorf("%s", c.tr("agents rm asks for confirmation: pass --yes when standard input is not a terminal"))
			}
			st, err := c.listSettings(g, nil)
			if err != nil {
				return err
			}
			return failure(c.withAgents(cmd.Context(), false, func(s *agentstore.Store) error {
				return c.agentsRm(cmd.Context(), s, args[0], st.Lang, yes)
			}))
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, c.tr("remove without asking"))
	return cmd
}

func (c *cli) agentsRm(ctx context.Context, s *agentstore.Store, ref string, l i18n.Lang, yes bool) error {
	a, err := resolveAgent(ctx, s, ref, l)
	if errors.Is(err, agentstore.ErrBadRow) {
		// A row this Moteur cannot read can still be removed by its id.
		a, err = agentconfig.Agent{ID: ref, Name: ref}, nil
	}
	if err != nil {
		return err
	}
	if a.Builtin {
		return agentError(c.lang, fmt.Errorf(c.tr("agent %s: %w: it cannot be removed"), a.ID, agentstore.ErrBuiltin))
	}
	if !yes {
		fmt.Fprintf(c.stderr, c.tr("Remove agent %s (%s)? [y/N] "), a.Name, a.ID)
		answer, _ := bufio.NewReader(c.stdin).ReadString('\n')
		if v := strings.ToLower(strings.TrimSpace(answer)); v != "y" && v != "yes" && v != "o" && v != "oui" {
			return errors.New(c.trf("agent %s not removed", a.Name))
		}
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		return agentError(c.lang, err)
	}
	_, err = fmt.Fprintf(c.stdout, c.tr("Removed agent %s (%s).\n"), a.Name, a.ID)
	return err
}

func (c *cli) agentsPresetsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "presets",
		Short:   c.tr("List the type presets moteur agents create --preset starts from"),
		Example: "  moteur agents presets\n  moteur --lang en agents presets --json",
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := c.listSettings(g, nil)
			if err != nil {
				return err
			}
			ps, err := agentconfig.Presets(st.Lang)
			if err != nil {
				return failure(err)
			}
			if asJSON {
				return failure(c.writeJSON(struct {
					Presets []agentconfig.Preset `json:"presets"`
				}{ps}))
			}
			tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tTOOLS\tDESCRIPTION")
			for _, p := range ps {
				tools := "default"
				if p.AllowedTools != nil {
					tools = strings.Join(p.AllowedTools, ",")
					if tools == "" {
						tools = "none"
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID, p.Name, oneLine(tools, 60), oneLine(p.Description, 80))
			}
			return failure(tw.Flush())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the presets as JSON"))
	return cmd
}

// defaultMaxTokens is the max_completion_tokens EnsureDefaults gives c
// when it sets none.
func defaultMaxTokens(c agentconfig.CustomAgentConfig) int {
	c = c.Clone()
	c.MaxCompletionTokens = 0
	c.EnsureDefaults()
	return c.MaxCompletionTokens
}

// newIndentedJSON writes JSON for a person to read.
func newIndentedJSON(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc
}

// selectionModes maps each list of names to the mode that selects it.
var selectionModes = map[string]string{
	"knowledge_bases": "kb_selection_mode",
	"mcp_services":    "mcp_selection_mode",
	"selected_skills": "skills_selection_mode",
}

func listLen(c agentconfig.CustomAgentConfig, key string) int {
	switch key {
	case "knowledge_bases":
		return len(c.KnowledgeBases)
	case "mcp_services":
		return len(c.MCPServices)
	case "selected_skills":
		return len(c.SelectedSkills)
	}
	return 0
}
