package app

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// BenchmarkServedTurn is what moteur serve does for each turn, in one
// goroutine: open the session on the server's store, run a turn whose
// answer streams 20 deltas, close the session. New sessions and continued
// ones alternate, as they do on a server.
func BenchmarkServedTurn(b *testing.B) {
	payloads := []string{openaitest.Chunk(`{"role":"assistant"}`, "")}
	for i := range 20 {
		payloads = append(payloads, openaitest.Text(fmt.Sprintf("mot%d ", i)))
	}
	payloads = append(payloads, openaitest.Chunk(`{}`, "stop"), openaitest.Usage(10, 20), openaitest.Done)
	reply := openaitest.Stream(payloads...)
	srv := httptest.NewServer(reply)
	b.Cleanup(srv.Close)
	e := newTestEnv(b)
	e.useProvider(b, srv.URL+"/v1", "")
	st, err := Database{Home: e.home()}.OpenStore(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	n := 0
	for b.Loop() {
		o := e.options(fmt.Sprintf("s-bench-%d", n/2))
		o.Store = st
		n++
		s, err := Open(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Engine.SubmitInput(b.Context(), s.ID, engine.Input{Text: "bonjour"}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
