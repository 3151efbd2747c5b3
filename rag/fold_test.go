package rag_test

import (
	"context"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/rag"
)

// storeOf is a fresh database with one base holding projet.md.
func storeOf(t *testing.T, projet string) *kb.Store {
	return storeWith(t, map[string]string{"projet.md": projet})
}

// TestDisguisedMarkingsInPassagesStayLocal: a passage whose marking is
// disguised is classified like one plainly marked; an ordinary passage
// goes to the remote model.
func TestDisguisedMarkingsInPassagesStayLocal(t *testing.T) {
	const body = "\n\nLe projet Alpha prévoit trente jours de tests de charge avant la mise en production.\n"
	for name, marking := range map[string]string{
		"split lines": "DIFFUSION\nRESTREINTE",
		"zero width":  "DIFF\u200bUSION RESTREINTE",
		"soft hyphen": "DIFFUSION RES\u00adTREINTE",
		"cyrillic":    "DIFFUSION RЕSTRЕINTЕ",
		"fullwidth":   "ＤＩＦＦＵＳＩＯＮ ＲＥＳＴＲＥＩＮＴＥ",
		"spaced":      "D I F F U S I O N   R E S T R E I N T E",
		"tlp":         "Diffusion : TLP-RED",
		"otan":        "SECRET OTAN",
	} {
		t.Run(name, func(t *testing.T) {
			srv := openaitest.NewServer(t) // any request fails the test
			p, err := rag.New(rag.Config{Store: storeOf(t, "# Projet Alpha\n\n"+marking+body),
				Router: router(t, srv, false), Outbound: outbound(t)})
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorded{}
			if _, err := p.Ask(context.Background(), "Combien de jours de tests pour le projet Alpha ?", nil, rec.emit); err != nil {
				t.Fatal(err)
			}
			rec.payload(t, func(p any) bool { _, ok := p.(event.SessionClassifiedPayload); return ok })
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d requests reached the remote model", n)
			}
		})
	}
	// The control: the same passage without a marking reaches the model.
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
	p, err := rag.New(rag.Config{Store: storeOf(t, "# Projet Alpha\n\nle secret professionnel, la DR Nord"+body),
		Router: router(t, srv, false), Outbound: outbound(t)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Ask(context.Background(), "Combien de jours de tests pour le projet Alpha ?", nil, nil)
	if err != nil || a.Extractive || len(srv.Requests()) != 1 {
		t.Fatalf("ordinary passage: answer %+v, %v, %d requests", a, err, len(srv.Requests()))
	}
}
