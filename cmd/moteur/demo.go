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
		Short: "Try Moteur in one command: sample documents, a question, an answer with its sources",
		Long: "Ingest the sample documents shipped with Moteur (examples/docs: leave, remote work, expenses, a\n" +
			"security policy, error codes) into a scratch data directory, answer a sample question from them with\n" +
			"citations, and say what to try next. No model and no network are used, and no configuration is read:\n" +
			"the scratch directory is removed at the end, and nothing is written to $MOTEUR_HOME.\n" +
			"Progress goes to standard error, the answer to standard output.",
		Example: "  go run ./cmd/moteur demo\n  moteur --lang en demo\n  moteur demo --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.demo(cmd.Context(), g, asJSON))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the answer's events as JSON lines on stdout, as moteur ask --json")
	return cmd
}

func (c *cli) demo(ctx context.Context, g *globalFlags, asJSON bool) error {
	if _, err := langFlag(g.lang); err != nil {
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
		return fmt.Errorf("demo: scratch directory: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(scratch); rerr != nil {
			fmt.Fprintf(c.stderr, "moteur demo: warning: could not remove %s: %v\n", scratch, rerr)
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
	tx := demoTexts[st.Lang.Normalize()]
	d.progressf(tx.scratch, scratch)

	if err := d.demoIngest(ctx, g, tx, docs); err != nil {
		return err
	}
	return d.demoAsk(ctx, g, tx, asJSON)
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
			return nil, "", fmt.Errorf("demo: %w", err)
		}
	}
	sample, err := fs.Sub(examples.Docs, "docs")
	if err == nil {
		err = os.CopyFS(docs, sample)
	}
	if err != nil {
		return nil, "", fmt.Errorf("demo: copy the sample documents: %w", err)
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
func (c *cli) demoIngest(ctx context.Context, g *globalFlags, tx demoText, dir string) error {
	return c.withKB(ctx, g, func(s *kb.Store) error {
		if _, err := s.Create(ctx, demoBase, kb.CreateOptions{Description: "Moteur's sample documents", NoVectors: true}); err != nil {
			return kbError(err)
		}
		c.progressf(tx.ingesting, demoBase)
		rep, err := s.Ingest(ctx, demoBase, []string{dir}, kb.IngestOptions{})
		if err != nil {
			return kbError(err)
		}
		for _, f := range rep.Files {
			if f.Status == kb.StatusFailed {
				c.progressf(tx.leftOut, filepath.Base(f.Path), oneLine(f.Error, 300))
			}
		}
		c.progressf(tx.ingested, rep.Added, rep.Chunks, rep.Duration.Round(time.Millisecond))
		return nil
	})
}

// demoAsk answers the sample question from the demo's base, then says
// what to try next.
func (c *cli) demoAsk(ctx context.Context, g *globalFlags, tx demoText, asJSON bool) error {
	o, err := c.options(g)
	if err != nil {
		return err
	}
	o.KnowledgeBases, o.SearchMode = []string{demoBase}, kb.ModeHybrid
	q, err := c.openQuick(ctx, o)
	if err != nil {
		return err
	}
	c.progressf(tx.asking, tx.question)
	if !asJSON {
		fmt.Fprintln(c.stderr)
	}
	err = c.answer(ctx, q, tx.question, asJSON)
	if cerr := q.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stderr, tx.next, fmt.Sprintf("%q", tx.nextQuestion))
	return err
}

// demoText is what the demo says, in one language.
type demoText struct {
	scratch, ingesting, ingested, leftOut, asking string
	// question is the sample question: one passage of examples/docs
	// answers it.
	question string
	// next is what to try next; its verb is nextQuestion, quoted.
	next, nextQuestion string
}

var demoTexts = map[i18n.Lang]demoText{
	i18n.FR: {
		scratch:      "répertoire de données provisoire %s (supprimé à la fin ; le vôtre n'est pas touché)",
		ingesting:    "ajout des documents d'exemple (examples/docs) à la base de connaissances %s…",
		ingested:     "%d documents, %d passages en %s",
		leftOut:      "attention : le document d'exemple %s est laissé de côté : %s",
		asking:       "question : %s",
		question:     "Combien de jours de congés payés par an ?",
		nextQuestion: "combien de jours de télétravail par semaine ?",
		next: `
Moteur a répondu d'après ses documents d'exemple, sans modèle : chaque citation renvoie à sa source ([c1]…).

Ensuite (dans un clone, « go run ./cmd/moteur » tient lieu de « moteur » ; « go install ./cmd/moteur » l'installe) :
  moteur kb create docs && moteur kb add docs ./examples/docs   une base de vos propres documents
  moteur ask %-50s une question, répondue d'après vos bases
  moteur chat                                                   un agent au travail sur ce projet (il faut un modèle)
Un modèle rédige les réponses de ask et travaille dans chat (tout serveur compatible OpenAI ; ici Ollama) :
  export MOTEUR_BASE_URL=http://localhost:11434/v1 MOTEUR_MODEL=qwen3
`,
	},
	i18n.EN: {
		scratch:      "scratch data directory %s (removed at the end; yours is not touched)",
		ingesting:    "adding the sample documents (examples/docs) to knowledge base %s…",
		ingested:     "%d documents, %d passages in %s",
		leftOut:      "warning: sample document %s left out: %s",
		asking:       "question: %s",
		question:     "How long must a password be?",
		nextQuestion: "what does ERR_4012 mean?",
		next: `
Moteur answered from its sample documents with no model: each quote cites its source ([c1]…).

Next (in a clone, "go run ./cmd/moteur" stands for "moteur"; "go install ./cmd/moteur" installs it):
  moteur kb create docs && moteur kb add docs ./examples/docs   a base of your own documents
  moteur ask %-50s a question, answered from your bases
  moteur chat                                                   an agent at work on this project (needs a model)
A model writes the answers of ask and works in chat (any OpenAI-compatible server; here Ollama):
  export MOTEUR_BASE_URL=http://localhost:11434/v1 MOTEUR_MODEL=qwen3
`,
	},
}
