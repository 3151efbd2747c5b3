package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
)

func (c *cli) kbAddCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add NAME PATH...",
		Short: c.tr("Add files and folders to a knowledge base"),
		Long: c.tr("Add files and folders (recursively, hidden entries skipped) to a knowledge base. A file already\n" +
			"there with the same content is skipped; a changed one replaces its old version at once (a search\n" +
			"never sees half of a document). A file that cannot be read is reported with its reason and the\n" +
			"others go on. A gzip-compressed text file (notes.md.gz, page.html.gz…) is read as its content.\n" +
			"The speed shown counts the bytes of the files added or updated, not those skipped or refused.\n" +
			"Exit status 1 when any file failed, or when the paths hold no file at all."),
		Example: "  moteur kb add docs ./handbook ./faq.md",
		Args:    c.minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withKB(cmd.Context(), g, func(s *kb.Store) error {
				bar := c.progressBar(asJSON)
				rep, err := s.Ingest(cmd.Context(), args[0], args[1:], kb.IngestOptions{Progress: bar.update})
				bar.done()
				if err != nil && rep.Base == "" {
					if errors.Is(err, fs.ErrNotExist) {
						return &statusError{code: exitUsage, err: err}
					}
					return kbError(app.KnowledgeBaseError(cmd.Context(), c.lang, s, args[:1], err))
				}
				if len(rep.Files) == 0 && err == nil {
					if asJSON {
						if jerr := c.writeJSON(rep); jerr != nil {
							return jerr
						}
					}
					return failure(c.noFileToAdd(rep.Base, args[1:]))
				}
				if asJSON {
					if jerr := c.writeJSON(rep); jerr != nil {
						return jerr
					}
				} else {
					c.ingestSummary(rep)
				}
				if err != nil {
					return failure(err)
				}
				if rep.Failed > 0 {
					return failure(errors.New(c.trf("%d file(s) could not be added", rep.Failed)))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the ingestion report as JSON"))
	return cmd
}

// ingestSummary prints the outcome of an ingestion: totals, then each
// failure with its reason, then warnings.
func (c *cli) ingestSummary(rep kb.IngestReport) {
	var in int64
	for _, f := range rep.Files {
		in += ingestedBytes(f)
	}
	fmt.Fprintln(c.stdout, c.trf("%s: %d added, %d updated, %d unchanged, %d failed · %d passages · %s ingested in %s (%s)",
		rep.Base, rep.Added, rep.Updated, rep.Unchanged, rep.Failed, rep.Chunks, humanBytes(in),
		rep.Duration.Round(time.Millisecond), rate(in, rep.Duration)))
	for _, f := range rep.Files {
		if f.Status == kb.StatusFailed {
			fmt.Fprintln(c.stdout, c.trf("  failed  %s: %s", shortPath(f.Path), oneLine(strings.TrimPrefix(f.Error, f.Path+": "), 300)))
		}
	}
	for _, f := range rep.Files {
		for _, w := range f.Warnings {
			fmt.Fprintln(c.stdout, c.trf("  warning %s: %s", shortPath(f.Path), oneLine(w, 300)))
		}
	}
}

// noFileToAdd says that the paths given to kb add hold no file: the verb
// agrees with how many there are.
func (c *cli) noFileToAdd(base string, paths []string) error {
	if len(paths) == 1 {
		return errors.New(c.trf("no file to add to %s: %s holds no file (hidden files and folders are skipped)", base, paths[0]))
	}
	return errors.New(c.trf("no file to add to %s: %s hold no file (hidden files and folders are skipped)", base, strings.Join(paths, ", ")))
}

// ingestedBytes counts what was read into the base: a file skipped as
// unchanged or refused took no indexing, and would only flatter the speed.
func ingestedBytes(f kb.FileReport) int64 {
	if f.Status == kb.StatusAdded || f.Status == kb.StatusUpdated {
		return f.Bytes
	}
	return 0
}

// progress draws one line on a terminal's standard error: files, passages,
// throughput, the file just done. Elsewhere it draws nothing.
type progress struct {
	w     io.Writer
	lang  i18n.Lang
	drawn bool
	// ingested sums the bytes of the files added or updated so far.
	ingested int64
}

func (c *cli) progressBar(quiet bool) *progress {
	if quiet || !isTerminal(c.stderr) {
		return &progress{}
	}
	return &progress{w: c.stderr, lang: c.lang}
}

const barWidth = 24

func (p *progress) update(pr kb.Progress) {
	if p.w == nil || pr.Files == 0 {
		return
	}
	p.ingested += ingestedBytes(pr.Last)
	filled := barWidth * pr.FilesDone / pr.Files
	bar := strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled)
	name := oneLine(shortPath(pr.Last.Path), 40)
	if pr.Parsing != "" {
		// A long document reports its pages, so the line moves on it too.
		name = fmt.Sprintf("%s p. %d/%d", oneLine(shortPath(pr.Parsing), 32), pr.PagesDone, pr.Pages)
	}
	fmt.Fprint(p.w, "\r\x1b[2K"+i18n.Trf(p.lang, "%s %d/%d files · %d passages · %s · %s", bar, pr.FilesDone, pr.Files, pr.Chunks,
		rate(p.ingested, pr.Elapsed), name))
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
}
