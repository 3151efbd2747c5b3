package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// The texts of kb, sessions and audit that stay as they are in every
// language.
func init() {
	exempt(map[string]string{
		"add NAME PATH...":     "cobra's use line: the command's syntax, the same in every language",
		"search NAME QUERY...": "cobra's use line: the command's syntax, the same in every language",
	})
}

func TestKbSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"kb", "list"},
		"Aucune base de connaissances pour l'instant",
		"No knowledge base yet")
	inBothLanguages(t, h, []string{"kb", "create", "--help"},
		"Créer une base de connaissances vide. Les documents",
		"Create an empty knowledge base. Documents are cut")
}

// kb create's help writes chunk's defaults out, in both languages: the
// two must agree.
func TestKbCreateHelpNamesTheChunkDefaults(t *testing.T) {
	h := newHarness(t, noModel)
	size, overlap := strconv.Itoa(chunk.DefaultSize), strconv.Itoa(chunk.DefaultOverlap)
	for _, lang := range []struct{ name, size, overlap string }{
		{"fr", "(" + size + " par défaut)", "(" + overlap + " par défaut)"},
		{"en", "(default " + size + ")", "(default " + overlap + ")"},
	} {
		h.env["MOTEUR_LANG"] = lang.name
		r := h.run(t, "kb", "create", "--help")
		// Once in the long text, once in the flag's usage.
		if strings.Count(r.stdout, lang.size) != 2 || strings.Count(r.stdout, lang.overlap) != 2 {
			t.Errorf("MOTEUR_LANG=%s: kb create --help does not give %s and %s twice each:\n%s", lang.name, lang.size, lang.overlap, r.stdout)
		}
	}
}

func TestSessionsSpeakTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"sessions", "list"},
		"aucune session dans",
		"no sessions in")
	inBothLanguages(t, h, []string{"sessions", "rewind", "--help"},
		"Ramener la session ID au point SEQ",
		"Put session ID back to the point SEQ")
}

// sessions show writes the conversation's frame in the run's language.
func TestSessionsShowSpeaksTheRunsLanguage(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-lang", "one"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	inBothLanguages(t, h, []string{"sessions", "show", "s-lang"},
		"· tour terminé : stop (1 itération, 1 requête)",
		"· turn ended: stop (1 round, 1 request)")
}

// The French prompt of sessions rm offers [o/N]: o confirms, as it does
// for kb rm and sessions rewind.
func TestSessionsRmConfirmsInFrench(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-oui", "one"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	h.env["MOTEUR_LANG"] = "fr"
	h.tty = true
	h.stdin = strings.NewReader("o\n")
	res := h.run(t, "sessions", "rm", "s-oui")
	if res.code != 0 || !strings.Contains(res.stderr, "Supprimer la session s-oui (4 événement(s), \"one\") ? ") ||
		!strings.Contains(res.stderr, "[o/N] ") || !strings.Contains(res.stdout, "session s-oui supprimée") {
		t.Errorf("answer o: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if _, err := h.store(t).Info(t.Context(), "s-oui"); err == nil {
		t.Error("the session is still stored after answering o")
	}
}

func TestAuditSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"audit", "verify"},
		"aucun journal d'audit dans",
		"no audit logs in")
	inBothLanguages(t, h, []string{"audit", "verify", "--help"},
		"Vérifier le journal d'audit de chaque SESSION",
		"Verify the audit log of each SESSION")
}

// audit verify's notes follow the language, but not in --json, whose
// output is a contract.
func TestAuditVerifyJSONStaysEnglish(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-gone", "one"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if res := h.run(t, "sessions", "rm", "--yes", "s-gone"); res.code != 0 {
		t.Fatalf("rm: exit %d: %s", res.code, res.stderr)
	}
	h.env["MOTEUR_LANG"] = "fr"
	text := h.run(t, "audit", "verify", "s-gone")
	if text.code != 0 || !strings.Contains(text.stdout, "la session s-gone n'est pas dans le stockage (supprimée ?)") {
		t.Errorf("audit verify in French: exit %d:\n%s%s", text.code, text.stdout, text.stderr)
	}
	js := h.run(t, "audit", "verify", "--json", "s-gone")
	if js.code != 0 || !strings.Contains(js.stdout, `session s-gone is not in the store (removed?)`) || strings.Contains(js.stdout, "stockage") {
		t.Errorf("audit verify --json in French: exit %d:\n%s%s", js.code, js.stdout, js.stderr)
	}
}
