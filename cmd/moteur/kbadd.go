package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/kb"
)

func (c *cli) kbAddCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add NAME PATH...",
		Short: "Add files and folders to a knowledge base",
		Long: "Add files and folders (recursively, hidden entries skipped) to a knowledge base. A file already\n" +
			"there with the same content is skipped; a changed one replaces its old version at once (a search\n" +
			"never sees half of a document). A file that cannot be read is reported with its reason and the\n" +
			"others go on. Exit status 1 when any file failed.",
		Example: "  moteur kb add docs ./handbook ./faq.md",
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withKB(cmd.Context(), g, func(s *kb.Store) error {
				bar := c.progressBar(asJSON)
				rep, err := s.Ingest(cmd.Context(), args[0], args[1:], kb.IngestOptions{Progress: bar.update})
				bar.done()
				if err != nil && rep.Base == "" {
					if errors.Is(err, fs.ErrNotExist) {
						return &statusError{code: exitUsage, err: err}
					}
					return kbError(err)
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
					return failure(fmt.Errorf("%d file(s) could not be added", rep.Failed))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the ingestion report as JSON")
	return cmd
}

// ingestSummary prints the outcome of an ingestion: totals, then each
// failure with its reason, then warnings.
func (c *cli) ingestSummary(rep kb.IngestReport) {
	fmt.Fprintf(c.stdout, "%s: %d added, %d updated, %d unchanged, %d failed · %d passages · %s in %s (%s)\n",
		rep.Base, rep.Added, rep.Updated, rep.Unchanged, rep.Failed, rep.Chunks, humanBytes(rep.Bytes),
		rep.Duration.Round(time.Millisecond), rate(rep.Bytes, rep.Duration))
	for _, f := range rep.Files {
		if f.Status == kb.StatusFailed {
			fmt.Fprintf(c.stdout, "  failed  %s: %s\n", shortPath(f.Path), oneLine(strings.TrimPrefix(f.Error, f.Path+": "), 300))
		}
	}
	for _, f := range rep.Files {
		for _, w := range f.Warnings {
			fmt.Fprintf(c.stdout, "  warning %s: %s\n", shortPath(f.Path), oneLine(w, 300))
		}
	}
}

// progress draws one line on a terminal's standard error: files, passages,
// throughput, the file just done. Elsewhere it draws nothing.
type progress struct {
	w     io.Writer
	drawn bool
}

func (c *cli) progressBar(quiet bool) *progress {
	if quiet || !isTerminal(c.stderr) {
		return &progress{}
	}
	return &progress{w: c.stderr}
}

const barWidth = 24

func (p *progress) update(pr kb.Progress) {
	if p.w == nil || pr.Files == 0 {
		return
	}
	filled := barWidth * pr.FilesDone / pr.Files
	bar := strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled)
	name := oneLine(shortPath(pr.Last.Path), 40)
	fmt.Fprintf(p.w, "\r\x1b[2K%s %d/%d files · %d passages · %s · %s", bar, pr.FilesDone, pr.Files, pr.Chunks,
		rate(pr.Bytes, pr.Elapsed), name)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
}
