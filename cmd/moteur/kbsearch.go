package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/kb"
)

func (c *cli) kbSearchCmd(g *globalFlags) *cobra.Command {
	var mode string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search NAME QUERY...",
		Short: c.tr("Search a knowledge base as the agent's search_knowledge does"),
		Long: c.tr("Search a knowledge base (NAME, or several separated by commas) and print the passages found, best first.\n" +
			"Modes: hybrid (default: vectors and keywords fused), semantic, keyword (exact terms, codes, identifiers)."),
		Example: "  moteur kb search docs \"délai de préavis\"\n  moteur kb search docs ERR_4012 --mode keyword --json",
		Args:    c.minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := kb.ParseMode(mode)
			if err != nil {
				return usageErrorf("--mode: %v", err)
			}
			q := kb.Query{Text: strings.Join(args[1:], " "), Mode: m, Bases: strings.Split(args[0], ","), Limit: limit}
			if strings.TrimSpace(q.Text) == "" {
				return usageErrorf("%s", c.tr("empty query"))
			}
			return c.withKB(cmd.Context(), g, func(s *kb.Store) error {
				res, err := s.Search(cmd.Context(), q)
				if err != nil {
					return kbError(app.KnowledgeBaseError(cmd.Context(), c.lang, s, q.Bases, err))
				}
				if asJSON {
					return c.writeJSON(res)
				}
				c.printHits(res, cmd.Flags().Changed("mode"))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "hybrid", c.tr("hybrid, semantic or keyword"))
	cmd.Flags().IntVar(&limit, "limit", 0, c.tr("number of passages (default 10, at most 30)"))
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the result as JSON (hits, requested_mode, mode_fallbacks…)"))
	return cmd
}

// printHits shows a search's passages; the mode fallbacks only when the
// user chose the mode (a base without vectors searched by keywords under
// the default mode is no news).
func (c *cli) printHits(res kb.Result, modeChosen bool) {
	for _, f := range res.Fallbacks {
		if modeChosen {
			fmt.Fprintln(c.stdout, c.trf("note: %s searched in %s mode instead of %s: %s", f.Base, f.To, f.From, f.Reason))
		}
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(c.stdout, c.tr("No passage found."))
		if res.Hint != "" {
			fmt.Fprintln(c.stdout, res.Hint)
		}
		return
	}
	for i, h := range res.Hits {
		where := filepath.Base(h.Path)
		if h.Page > 0 {
			where += fmt.Sprintf(" p. %d", h.Page)
		}
		if h.Headings != "" {
			where += " › " + h.Headings
		}
		fmt.Fprintf(c.stdout, "%d. %s — %s  (score %.2f)\n", i+1, h.Title, where, h.Score)
		fmt.Fprintf(c.stdout, "   %s\n\n", oneLine(h.Text, 300))
	}
}
