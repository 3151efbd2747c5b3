package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/kb"
)

func (c *cli) kbCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kb",
		Short: c.tr("Create, fill, search and remove knowledge bases"),
		Long: c.tr("Knowledge bases hold your documents (text, Markdown, HTML, PDF, DOCX, CSV, XLSX, JSON, source code,\n" +
			"each also gzip-compressed: notes.md.gz), cut into passages and indexed for keyword search (BM25)\n" +
			"and, when an embedding model is configured (MOTEUR_EMBED_MODEL, or embedding: in the config file),\n" +
			"for semantic search. They live in $MOTEUR_HOME/moteur.db. Ask them questions with moteur ask, or\n" +
			"give an agent their tools with moteur run --kb NAME. moteur demo shows it all on sample documents."),
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(c.kbCreateCmd(g), c.kbAddCmd(g), c.kbListCmd(g), c.kbRmCmd(g), c.kbSearchCmd(g), c.kbEvalCmd(g))
	return cmd
}

// withKB runs fn with the knowledge bases open.
func (c *cli) withKB(ctx context.Context, g *globalFlags, fn func(*kb.Store) error) error {
	st, err := c.modelessSettings(g)
	if err != nil {
		return err
	}
	s, err := st.OpenKnowledge(ctx)
	if err != nil {
		return appError(err)
	}
	return errors.Join(fn(s), s.Close())
}

// modelessSettings reads the configuration of the project in the working
// directory for a command that works without a model (kb).
func (c *cli) modelessSettings(g *globalFlags) (*app.Settings, error) {
	o, err := c.options(g)
	if err != nil {
		return nil, err
	}
	o.NoModel = true
	return c.settings(o)
}

func (c *cli) kbCreateCmd(g *globalFlags) *cobra.Command {
	var opt kb.CreateOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: c.tr("Create an empty knowledge base"),
		// The defaults are written out, so the text has its translation;
		// a test checks they are chunk's.
		Long: c.tr("Create an empty knowledge base. Documents are cut into passages of at most --chunk-size characters\n" +
			"(default 1000), each repeating the last --chunk-overlap characters of the previous one when a\n" +
			"paragraph had to be split (default 100). With an embedding model configured the base also gets\n" +
			"vectors, unless --no-vectors."),
		Example: "  moteur kb create docs\n  moteur kb create rh --description \"Procédures RH\" --chunk-size 1500",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := kb.CheckName(args[0]); err != nil {
				return usageErrorf("%v", err)
			}
			if err := opt.Chunking.Validate(); err != nil {
				return usageErrorf("%v", err)
			}
			return c.withKB(cmd.Context(), g, func(s *kb.Store) error {
				b, err := s.Create(cmd.Context(), args[0], opt)
				if err != nil {
					return kbError(err)
				}
				if asJSON {
					return c.writeJSON(b)
				}
				fmt.Fprintln(c.stdout, c.trf("Created knowledge base %s (%s). Add documents with: moteur kb add %s PATH...",
					b.Name, capabilities(b), b.Name))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&opt.Description, "description", "", c.tr("what the base holds"))
	cmd.Flags().Var(newChoice(&opt.Analyzer, kb.DefaultAnalyzer, kb.AnalyzerSnowball, kb.AnalyzerMoteur, kb.AnalyzerRaw), "analyzer", c.tr("keyword analysis: snowball (each document stemmed in its own language), moteur (accents, case, stop words, light stemming, FR+EN) or raw (SQLite's own)"))
	cmd.Flags().BoolVar(&opt.NoVectors, "no-vectors", false, c.tr("no semantic index even when an embedding model is configured"))
	cmd.Flags().IntVar(&opt.Chunking.Size, "chunk-size", 0, c.tr("passage size in characters (default 1000)"))
	cmd.Flags().IntVar(&opt.Chunking.Overlap, "chunk-overlap", 0, c.tr("overlap in characters (default 100)"))
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the new base as JSON"))
	return cmd
}

func capabilities(b kb.Base) string {
	var names []string
	for _, c := range b.Capabilities() {
		names = append(names, string(c))
	}
	return strings.Join(names, " + ")
}

func (c *cli) kbListCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: c.tr("List the knowledge bases"),
		Args:  c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKB(cmd.Context(), g, func(s *kb.Store) error {
				bases, err := s.List(cmd.Context())
				if err != nil {
					return failure(err)
				}
				if asJSON {
					if bases == nil {
						bases = []kb.Base{}
					}
					return c.writeJSON(bases)
				}
				if len(bases) == 0 {
					fmt.Fprintln(c.stdout, c.tr("No knowledge base yet. Create one with: moteur kb create NAME"))
					return nil
				}
				tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tDOCUMENTS\tPASSAGES\tSIZE\tINDEXES\tUPDATED")
				for _, b := range bases {
					fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", b.Name, b.Documents, b.Chunks, humanBytes(b.Bytes),
						capabilities(b), b.UpdatedAt.Local().Format("2006-01-02 15:04"))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the bases as a JSON array"))
	return cmd
}

func (c *cli) kbRmCmd(g *globalFlags) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "rm NAME [FILE...]",
		Short: c.tr("Remove a knowledge base, or some of its documents (the files themselves are not touched)"),
		Long: c.tr("With NAME alone, remove the knowledge base and everything indexed in it: on a terminal you confirm,\n" +
			"seeing how many documents and passages go; otherwise --yes is required. With files, remove only\n" +
			"those documents from it (as they were added: a path, relative to the working directory or absolute)."),
		Example: "  moteur kb rm docs\n  moteur kb rm docs --yes\n  moteur kb rm docs handbook/old-policy.md",
		Args:    c.minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withKB(cmd.Context(), g, func(s *kb.Store) error {
				if len(args) == 1 {
					return c.removeBase(cmd.Context(), s, args[0], yes)
				}
				return c.removeDocuments(cmd.Context(), s, args[0], args[1:])
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, c.tr("remove the whole base without asking"))
	return cmd
}

// removeBase removes a whole base once confirmed: asked on a terminal,
// which shows what would go; elsewhere only --yes confirms.
func (c *cli) removeBase(ctx context.Context, s *kb.Store, name string, yes bool) error {
	b, err := s.Base(ctx, name)
	if err != nil {
		return kbError(app.KnowledgeBaseError(ctx, c.lang, s, []string{name}, err))
	}
	what := c.trf("knowledge base %s (%s, %s)", b.Name,
		plural(b.Documents, c.tr("1 document"), c.tr("%d documents")), plural(b.Chunks, c.tr("1 passage"), c.tr("%d passages")))
	if !yes {
		if !c.stdinTTY {
			return usageErrorf("%s", c.trf("kb rm would remove %s: pass --yes when standard input is not a terminal", what))
		}
		fmt.Fprint(c.stderr, c.trf("Remove %s? The files themselves are not touched. [y/N] ", what))
		answer, _ := bufio.NewReader(c.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" && a != "o" && a != "oui" {
			return failure(errors.New(c.trf("knowledge base %s not removed", b.Name)))
		}
	}
	if err := s.Remove(ctx, b.Name); err != nil {
		return kbError(err)
	}
	_, err = fmt.Fprintln(c.stdout, c.trf("Removed knowledge base %s.", b.Name))
	return failure(err)
}

// removeDocuments removes documents of a base by their file path; every
// path is tried, and any not found makes the exit status 2.
func (c *cli) removeDocuments(ctx context.Context, s *kb.Store, base string, paths []string) error {
	if _, err := s.Base(ctx, base); err != nil {
		return kbError(app.KnowledgeBaseError(ctx, c.lang, s, []string{base}, err))
	}
	var missing []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return failure(err)
		}
		err = s.RemoveDocument(ctx, base, abs)
		switch {
		case errors.Is(err, kb.ErrNotFound):
			missing = append(missing, p)
		case err != nil:
			return kbError(err)
		default:
			fmt.Fprintln(c.stdout, c.trf("Removed %s from %s.", p, base))
		}
	}
	if len(missing) > 0 {
		return &statusError{code: exitUsage, err: errors.New(c.trf("not in knowledge base %s: %s", base, strings.Join(missing, ", ")))}
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// rate is a throughput in MB/s ("-" before any time has passed).
func rate(bytes int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MB/s", float64(bytes)/(1<<20)/d.Seconds())
}

// shortPath shows a path relative to the working directory when it is
// under it.
func shortPath(p string) string {
	if wd, err := filepath.Abs("."); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}
