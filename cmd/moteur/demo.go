package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/examples"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
)

// moteur demo: a first run with nothing configured. The sample documents
// embedded in the binary (package examples) are ingested into a scratch
// data directory, a question is answered from them by the extractive quick
// answer (no model, no network), and the scratch directory is removed: the
// user's data directory, configuration and at-rest key are never opened.

// demoBase is the knowledge base the demo fills.
const demoBase = "demo"

func (c *cli) demoCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: c.tr("Try Moteur in one command: sample documents, a question, an answer with its sources"),
		Long: c.tr("Ingest the sample documents shipped with Moteur (examples/docs: leave, remote work, expenses, a\n" +
			"security policy, error codes) into a scratch data directory, answer a sample question from them with\n" +
			"citations, and say what to try next. No model and no network are used, and no configuration is read:\n" +
			"the scratch directory is removed at the end, and nothing is written to $MOTEUR_HOME.\n" +
			"Progress goes to standard error, the answer to standard output."),
		Example: c.tr("  go run ./cmd/moteur demo\n  moteur --lang en demo\n  moteur demo --json"),
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.demo(cmd.Context(), g, asJSON))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the answer's events as JSON lines on stdout, as moteur ask --json"))
	return cmd
}

func (c *cli) demo(ctx context.Context, g *globalFlags, asJSON bool) error {
	if _, err := c.langFlag(g.lang); err != nil {
		return err
	}
	// Ctrl-C cancels the demo, so that its scratch directory is removed
	// all the same; a second one ends the process.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr, stopIntr := c.interrupts()
	defer stopIntr()
	go func() {
		select {
		case <-intr:
			stopIntr()
			cancel()
		case <-ctx.Done():
		}
	}()

	// A closed standard output (moteur demo | head) must fail a write,
	// not kill the process before it removes its scratch directory.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	scratch, err := os.MkdirTemp("", "moteur-demo-")
	if err != nil {
		return fmt.Errorf(c.tr("demo: scratch directory: %w"), err)
	}
	defer func() {
		if rerr := os.RemoveAll(scratch); rerr != nil {
			fmt.Fprintln(c.stderr, c.trf("moteur demo: warning: could not remove %s: %v", scratch, rerr))
		}
	}()
	d, docs, err := c.demoCLI(scratch)
	if err != nil {
		return err
	}
	// The language of the run: --lang, else $MOTEUR_LANG (no configuration
	// file is read), for the demo's own lines as for the answer.
	st, err := d.modelessSettings(g)
	if err != nil {
		return err
	}
	d.lang = st.Lang.Normalize()
	d.progressf(d.tr("scratch data directory %s (removed at the end; yours is not touched)"), scratch)

	if err := d.demoIngest(ctx, g, docs); err != nil {
		return err
	}
	return d.demoAsk(ctx, g, asJSON)
}

// demoCLI is c in the scratch directory: the environment names only the
// scratch data and configuration directories (no model, no user
// configuration), the project is an empty folder there, and the sample
// documents are copied into docs, returned.
func (c *cli) demoCLI(scratch string) (*cli, string, error) {
	dirs := map[string]string{
		"MOTEUR_HOME":     filepath.Join(scratch, "home"),
		"XDG_CONFIG_HOME": filepath.Join(scratch, "config"),
		"XDG_DATA_HOME":   filepath.Join(scratch, "data"),
		"HOME":            scratch,
	}
	project := filepath.Join(scratch, "project")
	docs := filepath.Join(scratch, "docs")
	for _, dir := range []string{dirs["MOTEUR_HOME"], dirs["XDG_CONFIG_HOME"], dirs["XDG_DATA_HOME"], project} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", fmt.Errorf(c.tr("demo: %w"), err)
		}
	}
	sample, err := fs.Sub(examples.Docs, "docs")
	if err == nil {
		err = os.CopyFS(docs, sample)
	}
	if err != nil {
		return nil, "", fmt.Errorf(c.tr("demo: copy the sample documents: %w"), err)
	}
	d := *c
	d.env = func(k string) string {
		if v, ok := dirs[k]; ok {
			return v
		}
		switch k {
		// The language chosen, and the organisation's policy, which
		// applies on top of everything.
		case "MOTEUR_LANG", "MOTEUR_POLICY", "PATH", "USER", "LOGNAME":
			return c.env(k)
		}
		return ""
	}
	d.workDir = func() (string, error) { return project, nil }
	return &d, docs, nil
}

// progressf prints a progress line of the demo on standard error.
func (c *cli) progressf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "moteur demo: "+format+"\n", args...)
}

// demoIngest creates the demo's base and adds the documents of dir.
func (c *cli) demoIngest(ctx context.Context, g *globalFlags, dir string) error {
	return c.withKB(ctx, g, func(s *kb.Store) error {
		if _, err := s.Create(ctx, demoBase, kb.CreateOptions{Description: c.tr("Moteur's sample documents"), NoVectors: true}); err != nil {
			return kbError(err)
		}
		c.progressf(c.tr("adding the sample documents (examples/docs) to knowledge base %s…"), demoBase)
		rep, err := s.Ingest(ctx, demoBase, []string{dir}, kb.IngestOptions{})
		if err != nil {
			return kbError(err)
		}
		for _, f := range rep.Files {
			if f.Status == kb.StatusFailed {
				c.progressf(c.tr("warning: sample document %s left out: %s"), filepath.Base(f.Path), oneLine(f.Error, 300))
			}
		}
		c.progressf(c.tr("%d documents, %d passages in %s"), rep.Added, rep.Chunks, rep.Duration.Round(time.Millisecond))
		return nil
	})
}

// demoAsk answers the sample question from the demo's base, then says
// what to try next.
func (c *cli) demoAsk(ctx context.Context, g *globalFlags, asJSON bool) error {
	qs := demoQuestions[c.lang.Normalize()]
	o, err := c.options(g)
	if err != nil {
		return err
	}
	o.KnowledgeBases, o.SearchMode = []string{demoBase}, kb.ModeHybrid
	q, err := c.openQuick(ctx, o)
	if err != nil {
		return err
	}
	c.progressf(c.tr("question: %s"), qs.question)
	if !asJSON {
		fmt.Fprintln(c.stderr)
	}
	err = c.answer(ctx, q, qs.question, asJSON)
	if cerr := q.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stderr, c.tr(`
Moteur answered from its sample documents with no model: each quote cites its source ([c1]…).

Next (in a clone, "go run ./cmd/moteur" stands for "moteur"; "go install ./cmd/moteur" installs it):
  moteur kb create docs && moteur kb add docs ./examples/docs   a base of your own documents
  moteur ask %-50s a question, answered from your bases
  moteur chat                                                   an agent at work on this project (needs a model)
A model writes the answers of ask and works in chat (any OpenAI-compatible server; here Ollama):
  export MOTEUR_BASE_URL=http://localhost:11434/v1 MOTEUR_MODEL=qwen3
`), fmt.Sprintf("%q", qs.next))
	return err
}

// demoQuestion is the demo's sample question in one language, and the
// one it suggests next. They are not translations of one another: each
// language asks what one of the sample documents in that language answers.
type demoQuestion struct {
	question, next string
}

var demoQuestions = map[i18n.Lang]demoQuestion{
	i18n.FR: {question: "Combien de jours de congés payés par an ?", next: "combien de jours de télétravail par semaine ?"},
	i18n.EN: {question: "How long must a password be?", next: "what does ERR_4012 mean?"},
}
