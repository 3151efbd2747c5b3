package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/skills"
)

func (c *cli) skillsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: c.tr("Skills: SKILL.md packages the agent reads on demand"),
		Args:  c.noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: c.tr("List the skills a session here is offered, and the packages that cannot be used"),
		Long: c.tr("List the skills of $XDG_CONFIG_HOME/moteur/skills, .moteur/skills, .agents/skills and .claude/skills\n" +
			"(first wins): each one's name, where it comes from and its description, then the packages left out\n" +
			"(the configuration's skills: selection) and those that cannot be used, with the file and why.\n\n" +
			"Exit status: 0, 1 when the configuration cannot be read, 2 on bad usage."),
		Example: "  moteur skills list\n  moteur skills list --json",
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.skillsList(cmd.Context(), g, asJSON))
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, c.tr("print the skills as one JSON object"))
	cmd.AddCommand(list)
	return cmd
}

// skillReport is `skills list --json`.
type skillReport struct {
	Skills   []skillLine `json:"skills"`
	Excluded []skillLine `json:"excluded,omitempty"`
	Problems []string    `json:"problems,omitempty"`
}

type skillLine struct {
	Name        string `json:"name"`
	Source      string `json:"source"`
	Dir         string `json:"dir"`
	Description string `json:"description"`
}

func skillLines(ks []skills.Skill) []skillLine {
	out := []skillLine{}
	for _, k := range ks {
		out = append(out, skillLine{Name: k.Name, Source: string(k.Source), Dir: k.Dir, Description: k.Description})
	}
	return out
}

func (c *cli) skillsList(_ context.Context, g *globalFlags, asJSON bool) error {
	st, err := c.listSettings(g, nil)
	if err != nil {
		return err
	}
	set, err := st.Skills()
	if err != nil {
		return err
	}
	rep := skillReport{Skills: skillLines(set.List()), Excluded: skillLines(set.Excluded())}
	for _, p := range set.Problems() {
		rep.Problems = append(rep.Problems, p.Error())
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	if err := c.printSkills(set.List(), true); err != nil {
		return err
	}
	for _, k := range set.Excluded() {
		fmt.Fprintf(c.stdout, c.tr("%s: not offered (the configuration's skills: selection)\n"), k.Name)
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(c.stderr, "moteur: skills: "+oneLine(p, 400))
	}
	return nil
}

// printSkills writes one line a skill; none says where skills are read.
func (c *cli) printSkills(ks []skills.Skill, withSource bool) error {
	if len(ks) == 0 {
		_, err := fmt.Fprintln(c.stdout, c.tr("no skills (SKILL.md packages in .moteur/skills/, .agents/skills/, .claude/skills/ or $XDG_CONFIG_HOME/moteur/skills/)"))
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
	for _, k := range ks {
		if withSource {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, k.Source, oneLine(k.Description, 100))
		} else {
			fmt.Fprintf(tw, "/%s\t%s\n", k.Name, oneLine(k.Description, 100))
		}
	}
	return tw.Flush()
}

// skillCall splits "/NAME ARGS" when NAME is a valid skill name.
func skillCall(prompt string) (name, args string, ok bool) {
	p := strings.TrimSpace(prompt)
	if !strings.HasPrefix(p, "/") {
		return "", "", false
	}
	name, args, _ = strings.Cut(p[1:], " ")
	if skills.CheckName(name) != nil {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// skillInput is the user message of the skill name run with args: the
// text the model reads, what the user typed, and which SKILL.md (its
// SHA-256) it came from, for the session's record.
func skillInput(ses *app.Session, name, args string) (engine.Input, error) {
	text, sum, err := ses.Skills().Invoke(name, args)
	if err != nil {
		return engine.Input{}, err
	}
	typed := "/" + name
	if args != "" {
		typed += " " + args
	}
	return engine.Input{Text: text, Typed: typed, Skill: name, SkillSHA256: sum}, nil
}
