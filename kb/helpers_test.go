package kb

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/kb/analyze"
)

// bagEmbedder embeds a text as its analysed terms hashed into dims
// buckets: texts sharing words are near, which is all the search needs to
// be tested without a model.
type bagEmbedder struct {
	model string
	dims  int
	calls atomic.Int32
	fail  func(texts []string) error
}

func (e *bagEmbedder) Model() string { return e.model }

func (e *bagEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	if e.fail != nil {
		if err := e.fail(texts); err != nil {
			return nil, err
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dims)
		for _, term := range analyze.Terms(t, analyze.Options{}) {
			h := fnv.New32a()
			h.Write([]byte(term))
			v[h.Sum32()%uint32(e.dims)]++
		}
		out[i] = v
	}
	return out, nil
}

func newBag() *bagEmbedder { return &bagEmbedder{model: "bag-64", dims: 64} }

// testClock gives every call a later time, so ids and times are stable.
func testClock() func() time.Time {
	var n atomic.Int64
	base := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

func testIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%04d", n.Add(1)) }
}

func openTest(t testing.TB, cfg Config) *Store {
	t.Helper()
	if cfg.Path == "" {
		cfg.Path = filepath.Join(t.TempDir(), "moteur.db")
	}
	if cfg.Now == nil {
		cfg.Now = testClock()
	}
	if cfg.NewID == nil {
		cfg.NewID = testIDs()
	}
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustCreate(t testing.TB, s *Store, name string, opt CreateOptions) Base {
	t.Helper()
	b, err := s.Create(context.Background(), name, opt)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFiles writes name → content under a new directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustIngest(t testing.TB, s *Store, base string, paths ...string) IngestReport {
	t.Helper()
	rep, err := s.Ingest(context.Background(), base, paths, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func search(t testing.TB, s *Store, q Query) Result {
	t.Helper()
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func titles(hits []Hit) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Title)
	}
	return strings.Join(out, ", ")
}

// handbook is a small corpus of Markdown documents.
var handbook = map[string]string{
	"conges.md":      "# Congés payés\n\nChaque salarié acquiert 2,5 jours ouvrables de congés payés par mois de travail effectif, soit 30 jours par an.\n\n## Report\n\nLes congés non pris au 31 mai peuvent être reportés avec l'accord du responsable.\n",
	"teletravail.md": "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période d'essai. La demande se fait dans l'outil RH.\n",
	"erreurs.md":     "# Codes d'erreur\n\n## ERR_4012\n\nL'erreur ERR_4012 signale un jeton d'authentification expiré : reconnectez-vous.\n\n## ERR_5001\n\nL'erreur ERR_5001 signale une panne du serveur de fichiers.\n",
	"security.md":    "# Network security policy\n\nAll laptops must use the corporate VPN on public networks. Firewalls block inbound connections by default.\n",
	"expenses.md":    "# Expense reports\n\nExpense reports are submitted monthly with receipts attached. Travel expenses above 500 euros need prior approval.\n",
}
