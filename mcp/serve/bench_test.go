package serve_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/mcp/serve"
)

// benchWords make the benchmark's documents: procedures in a shared
// vocabulary, so that a query has many candidates to rank.
var benchWords = strings.Fields("congés payés salarié jours ouvrables mois travail effectif télétravail semaine période essai " +
	"notes frais remboursement justificatifs procédure demande validation responsable service ressources humaines " +
	"contrat préavis démission rupture formation budget annuel entretien évaluation prime ancienneté horaires astreinte")

// benchFixture adds n documents of a few passages each to the fixture's
// base docs.
func benchFixture(b *testing.B, n int) *fixture {
	b.Helper()
	f := newFixture(b)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		var sb strings.Builder
		for s := range 3 {
			fmt.Fprintf(&sb, "## Section %d\n\n", s)
			for range 40 {
				sb.WriteString(benchWords[r.IntN(len(benchWords))] + " ")
			}
			sb.WriteString(".\n\n")
		}
		if _, err := f.store.AddText(context.Background(), "docs", kbs.Text{Key: fmt.Sprintf("bench/doc-%03d.md", i),
			Title: fmt.Sprintf("Procédure %d", i), Body: sb.String(), Name: "doc.md"}); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

const benchQuery = "congés payés salarié jours ouvrables"

// BenchmarkSearch compares one search_knowledge call through moteur mcp
// serve (in-memory and streamable HTTP transports) with the same search
// made through the knowledge base directly, as moteur kb search does.
func BenchmarkSearch(b *testing.B) {
	f := benchFixture(b, 300)
	ctx := context.Background()
	args := map[string]any{"query": benchQuery}
	b.Run("kb-search-direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := f.store.Search(ctx, kbs.Query{Text: benchQuery, Bases: []string{"docs"}})
			if err != nil || len(res.Hits) == 0 {
				b.Fatalf("%v, %d hits", err, len(res.Hits))
			}
		}
	})
	b.Run("mcp-in-memory", func(b *testing.B) {
		cs := connect(b, f.server(b, false))
		benchCall(b, cs, args)
	})
	b.Run("mcp-streamable-http", func(b *testing.B) {
		ts := httptest.NewServer(f.server(b, false).Handler())
		defer ts.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + serve.Path, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		benchCall(b, cs, args)
	})
}

func benchCall(b *testing.B, cs *mcp.ClientSession, args map[string]any) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_knowledge", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
