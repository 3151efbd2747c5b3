package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/beir"
	"github.com/moteur/moteur/kb/kbeval"
)

func (c *cli) kbEvalCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "eval DIR",
		Short: c.tr("Measure retrieval quality on a test set in the BEIR layout"),
		Long: c.tr("Index DIR/corpus.jsonl (_id, title, text) in a temporary knowledge base, run DIR/queries.jsonl\n" +
			"(_id, text) in every search mode available (keyword; semantic and hybrid with an embedding model),\n" +
			"and print nDCG@10, recall@10 and MRR@10 against DIR/qrels/test.tsv (query-id, corpus-id, score),\n" +
			"with SQLite FTS5's plain bm25() over the same corpus as a baseline. Nothing is kept."),
		Example: "  moteur kb eval kb/beir/testdata/moteur-fr-en\n  moteur kb eval ./scifact --json",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := beir.Load(args[0])
			if err != nil {
				return failure(err)
			}
			st, err := c.modelessSettings(g)
			if err != nil {
				return err
			}
			// The models are the configuration's, behind the outbound check,
			// as for a real base; nothing is opened in the data directory.
			em, rr, err := st.KnowledgeModels()
			if err != nil {
				return appError(err)
			}
			opt := kbeval.Options{Retrieval: st.Config.Retrieval, Embedder: em, Reranker: rr}
			bar := c.progressBar(asJSON)
			opt.Progress = func(done, total int) {
				bar.update(kb.Progress{Files: total, FilesDone: done, Last: kb.FileReport{Path: c.tr("indexing")}})
			}
			rep, err := kbeval.Run(cmd.Context(), set, opt)
			bar.done()
			if err != nil {
				return failure(err)
			}
			if asJSON {
				return c.writeJSON(rep)
			}
			fmt.Fprint(c.stdout, c.trf("%d documents, %d queries", rep.Documents, rep.Queries)+"\n\n")
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RANKING\tnDCG@10\tRECALL@10\tMRR@10")
			for _, m := range append(rep.Modes, rep.Baseline) {
				fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\n", m.Name, m.NDCG, m.Recall, m.MRR)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the scores as JSON"))
	return cmd
}
