package kb_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

type memSink struct {
	mu     sync.Mutex
	events []event.Event
}

func (m *memSink) Write(_ context.Context, e event.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, e)
	return nil
}

func newEngine(t *testing.T, f *fixture, srv *openaitest.Server, sink *memSink) *engine.Engine {
	t.Helper()
	p, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Deps{Provider: p, Tools: f.reg, Sinks: []event.Sink{sink}, SystemPrompt: "S"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range e.Subscribe() {
		}
	}()
	return e
}

// The model works with aliases only: what it is sent never holds a stored
// id, its citation [c1] is mapped back to the chunk, and the aliases mean
// the same after a restart.
func TestAliasRoundTripThroughTheEngine(t *testing.T) {
	f := newFixture(t, 0)
	srv := openaitest.NewServer(t,
		openaitest.Calls("k1", "search_knowledge", `{"query":"ERR_4012 jeton","mode":"keyword","limit":1}`),
		openaitest.Calls("k2", "read_document", `{"id":"c1","context":1}`),
		openaitest.Answer("Le jeton d'authentification a expiré [c1]."),
		// After the restart: c1 still reads the same passage.
		openaitest.Calls("k3", "read_document", `{"id":"c1"}`),
		openaitest.Calls("k4", "search_knowledge", `{"query":"VPN laptops","mode":"keyword","limit":1}`),
		openaitest.Answer("VPN obligatoire [c2]."),
	)
	sink := &memSink{}
	e := newEngine(t, f, srv, sink)
	if err := e.Submit(context.Background(), "s1", "Que signifie ERR_4012 ?"); err != nil {
		t.Fatal(err)
	}
	e2 := newEngine(t, f, srv, sink)
	if err := e2.Restore("s1", sink.events); err != nil {
		t.Fatal(err)
	}
	if err := e2.Submit(context.Background(), "s1", "Et le VPN ?"); err != nil {
		t.Fatal(err)
	}
	srv.CheckPairing(t)
	for i, r := range srv.Requests() {
		if m := storedID.FindString(string(r.Body)); m != "" {
			t.Fatalf("request %d sent the stored id %s to the model", i+1, m)
		}
	}

	var chunkID string
	var answers []event.AssistantMessagePayload
	var reads []string
	for _, ev := range sink.events {
		switch p := ev.Payload.(type) {
		case event.ToolResultPayload:
			if p.IsError {
				t.Fatalf("tool error: %s", p.Content)
			}
			for _, r := range p.References {
				if r.Alias == "c1" {
					chunkID = r.ID
				}
			}
			if p.Name == "read_document" {
				reads = append(reads, p.Content)
			}
		case event.AssistantMessagePayload:
			if len(p.ToolCalls) == 0 {
				answers = append(answers, p)
			}
		}
	}
	if chunkID == "" || len(answers) != 2 || len(reads) != 2 {
		t.Fatalf("chunk %q, %d answers, %d reads", chunkID, len(answers), len(reads))
	}
	c := answers[0].Citations
	if len(c) != 1 || c[0].Alias != "c1" || c[0].ID != chunkID || c[0].Kind != cite.Chunk || c[0].Title != "Codes d'erreur" {
		t.Fatalf("citations of the first answer: %+v", c)
	}
	stored, err := f.store.Chunk(context.Background(), chunkID)
	if err != nil || !strings.Contains(stored.Text, "ERR_4012") {
		t.Fatalf("[c1] does not lead to the passage: %+v %v", stored, err)
	}
	if !strings.Contains(reads[1], "ERR_4012") {
		t.Fatalf("after the restart c1 reads another passage:\n%s", reads[1])
	}
	c = answers[1].Citations
	if len(c) != 1 || c[0].Alias != "c2" || !strings.Contains(c[0].Title, "Network security") {
		t.Fatalf("after the restart the next passage is not c2: %+v", c)
	}
}
