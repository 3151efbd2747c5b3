package tools_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/tools"
)

// Registries that register the same schema share its compiled form: each
// still validates and casts its own calls, from many goroutines at once
// (run with -race), and a schema that differs only in layout is the same.
func TestSharedSchemasValidateInEveryRegistry(t *testing.T) {
	const schema = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	var regs []*tools.Registry
	for i := range 4 {
		r := tools.NewRegistry(tools.Config{})
		layout := schema
		if i%2 == 1 {
			layout = strings.ReplaceAll(schema, ",", ",\n  ")
		}
		mustRegister(t, r, echo("count", layout))
		regs = append(regs, r)
	}
	var wg sync.WaitGroup
	for _, r := range regs {
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := exec(r, "count", `{"n":"7"}`); got.IsError || got.Content != `{"n":7}` {
					t.Errorf("cast through a shared schema = %+v, want {\"n\":7}", got)
				}
				if got := exec(r, "count", `{"n":"seven"}`); !got.IsError || !strings.Contains(got.Content, "integer") {
					t.Errorf("validation through a shared schema = %+v, want an error naming integer", got)
				}
			}()
		}
	}
	wg.Wait()
	for _, r := range regs {
		if defs := r.Definitions(); len(defs) != 1 || string(defs[0].Parameters) != schema {
			t.Fatalf("Definitions = %+v, want the compacted schema %s", defs, schema)
		}
	}
}
