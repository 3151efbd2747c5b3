package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/internal/i18ntest"
	"github.com/moteur/moteur/kb"
)

// Every text package app translates (i18n.Tr, i18n.Trf) is a constant
// string with a French translation: a French run says nothing in English.
func TestEveryAppTextHasFrench(t *testing.T) {
	fset, files := i18ntest.Sources(t)
	if i18ntest.CheckTranslated(t, fset, files, i18ntest.I18nCall, nil) == 0 {
		t.Fatal("no translated text found: the check looked at nothing")
	}
}

// An unknown agent is said in the run's language, all of it (the sentinel's
// English included), and still wraps agentstore.ErrNotFound.
func TestUnknownAgentInTheRunsLanguage(t *testing.T) {
	for lang, want := range map[i18n.Lang]string{
		i18n.FR: `"inconnu" : agent inconnu ; les agents sont : `,
		i18n.EN: `"inconnu": no such agent; the agents are: `,
	} {
		e := newTestEnv(t)
		o := e.options("")
		o.Lang = lang
		_, err := ResolveAgent(t.Context(), o, "inconnu")
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "agent" || !errors.Is(err, agentstore.ErrNotFound) {
			t.Fatalf("%s: %v, want an OptionError of the agent wrapping agentstore.ErrNotFound", lang, err)
		}
		if msg := oe.Err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "builtin-quick-answer") {
			t.Errorf("%s: %q, want it to start with %q and list the agents", lang, msg, want)
		}
		if lang == i18n.FR && strings.Contains(oe.Err.Error(), "no such agent") {
			t.Errorf("French message %q has English in it", oe.Err.Error())
		}
	}
}

// A session asking for a knowledge base that does not exist is told so in
// its language, and the error still wraps kb.ErrNotFound.
func TestMissingBaseInTheRunsLanguage(t *testing.T) {
	for lang, want := range map[i18n.Lang]string{
		i18n.FR: "base de connaissances absente introuvable (voir moteur kb list)",
		i18n.EN: "knowledge base absente not found (see moteur kb list)",
	} {
		e := newTestEnv(t)
		o := e.options("s-kb")
		o.Lang, o.KnowledgeBases = lang, []string{"absente"}
		_, err := Open(t.Context(), o)
		if !errors.Is(err, kb.ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error wrapping kb.ErrNotFound saying %q", lang, err, want)
		}
	}
}
