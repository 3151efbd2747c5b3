package main

import (
	"strings"
	"testing"
)

// appSpeaks runs args with MOTEUR_LANG set to each language and checks
// that the output holds that language's text and not the other's, with
// the exit status want.
func appSpeaks(t *testing.T, h *harness, args []string, code int, fr, en string) {
	t.Helper()
	for _, lang := range []struct{ name, want, not string }{{"fr", fr, en}, {"en", en, fr}} {
		h.env["MOTEUR_LANG"] = lang.name
		r := h.run(t, args...)
		out := r.stdout + r.stderr
		if r.code != code || !strings.Contains(out, lang.want) || strings.Contains(out, lang.not) {
			t.Errorf("MOTEUR_LANG=%s moteur %s: want exit %d and %q, not %q; got exit %d:\n%s",
				lang.name, strings.Join(args, " "), code, lang.want, lang.not, r.code, out)
		}
	}
}

// An agent that does not exist is said in the run's language, as the
// usage error it is.
func TestUnknownAgentSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	appSpeaks(t, h, []string{"run", "--agent", "nope", "hi"}, exitUsage,
		`--agent "nope" : agent inconnu ; les agents sont : `,
		`--agent "nope": no such agent; the agents are: `)
}

// A knowledge base that does not exist is said in the run's language by
// every kb command that names one, still the user's mistake (exit 2).
func TestMissingBaseSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	fr := "base de connaissances nobase introuvable (voir moteur kb list)"
	en := "knowledge base nobase not found (see moteur kb list)"
	for _, args := range [][]string{
		{"kb", "add", "nobase", h.dir},
		{"kb", "rm", "--yes", "nobase"},
		{"kb", "rm", "--yes", "nobase", "doc.md"},
		{"kb", "search", "nobase", "congés"},
	} {
		appSpeaks(t, h, args, exitUsage, fr, en)
	}
}
