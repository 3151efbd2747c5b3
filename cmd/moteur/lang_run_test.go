package main

import (
	"strings"
	"testing"
)

// The texts of run, chat, ask, demo, sessions pending / approve / deny and
// the root that stay as they are in every language.
func init() {
	exempt(map[string]string{
		"Combien de jours de congés payés par an ?":                       "the French demo's sample question: each language asks what a sample document in it answers",
		"combien de jours de télétravail par semaine ?":                   "the French demo's next question, as above",
		"How long must a password be?":                                    "the English demo's sample question: each language asks what a sample document in it answers",
		"what does ERR_4012 mean?":                                        "the English demo's next question, as above",
		"approve ID PERMISSION [--remember] [--network]":                  "cobra's Use: the command's name, operands and flags",
		"deny ID PERMISSION [--reason TEXT]":                              "cobra's Use: the command's name, operands and flags",
		"Test tool: writes the marker file, then blocks until cancelled.": "the description of a test-only tool (build tag moteur_testtools), read by the model",
	})
}

// langCase is one command run in each language: what its stderr or stdout
// says, and what its help says.
type langCase struct {
	args           []string
	en, fr         string // in the command's output (stdout and stderr)
	help           []string
	helpEN, helpFR string
}

// check runs c in French (MOTEUR_LANG=fr) and in English (--lang en), and
// fails unless each language shows its own text and not the other's.
func (c langCase) check(t *testing.T) {
	t.Helper()
	h := newHarness(t, "http://127.0.0.1:9")
	h.env["MOTEUR_LANG"] = "fr"
	for _, run := range []struct {
		lang             string
		args             []string
		want, unwanted   string
		wantH, unwantedH string
	}{
		{"fr", c.args, c.fr, c.en, c.helpFR, c.helpEN},
		{"en", append([]string{"--lang", "en"}, c.args...), c.en, c.fr, c.helpEN, c.helpFR},
	} {
		r := h.run(t, run.args...)
		out := r.stdout + r.stderr
		if !strings.Contains(out, run.want) || strings.Contains(out, run.unwanted) {
			t.Errorf("moteur %s (%s): output lacks %q or shows %q:\n%s", strings.Join(run.args, " "), run.lang, run.want, run.unwanted, out)
		}
		help := append(append([]string{}, run.args[:len(run.args)-len(c.args)]...), c.help...)
		r = h.run(t, append(help, "--help")...)
		if !strings.Contains(r.stdout, run.wantH) || strings.Contains(r.stdout, run.unwantedH) {
			t.Errorf("moteur %s --help (%s): lacks %q or shows %q:\n%s", strings.Join(help, " "), run.lang, run.wantH, run.unwantedH, r.stdout)
		}
	}
}

func TestRootSpeaksTheRunsLanguage(t *testing.T) {
	langCase{
		args: []string{"run", "--jsn", "x"},
		en:   `did you mean "--json"?`, fr: `vouliez-vous dire "--json" ?`,
		help:   nil,
		helpEN: "with an audit log of everything they do", helpFR: "avec un journal\nd'audit de tout ce qu'ils font",
	}.check(t)
}

func TestRunSpeaksTheRunsLanguage(t *testing.T) {
	langCase{
		args: []string{"run"},
		en:   "no prompt: give it as arguments or on standard input", fr: "aucun prompt : donnez-le en arguments ou sur l'entrée standard",
		help:   []string{"run"},
		helpEN: "When the turn ends, standard error says", helpFR: "À la fin du tour, la",
	}.check(t)
}

func TestChatSpeaksTheRunsLanguage(t *testing.T) {
	langCase{
		args: []string{"chat", "--max-iterations", "0"},
		en:   "invalid --max-iterations 0: want 1 or more", fr: "--max-iterations 0 invalide : il faut 1 ou plus",
		help:   []string{"chat"},
		helpEN: "read prompts line by line instead of the full-screen interface", helpFR: "lit les prompts ligne à ligne au lieu de l'interface plein écran",
	}.check(t)
}

func TestAskSpeaksTheRunsLanguage(t *testing.T) {
	langCase{
		args: []string{"ask", "--session", "s-1", "--continue", "q"},
		en:   "--session, --continue and --new-session exclude one another", fr: "--session, --continue et --new-session s'excluent",
		help:   []string{"ask"},
		helpEN: "knowledge bases to search", helpFR: "bases de connaissances où chercher",
	}.check(t)
}

func TestDemoSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:9")
	h.env["MOTEUR_LANG"] = "fr"
	// An unknown --lang: the error is in the language of the environment.
	r := h.run(t, "demo", "--lang", "xx")
	if !strings.Contains(r.stderr, `--lang "xx" invalide : il faut fr ou en`) {
		t.Errorf("demo --lang xx in French: %q", r.stderr)
	}
	h.env["MOTEUR_LANG"] = "en"
	r = h.run(t, "demo", "--lang", "xx")
	if !strings.Contains(r.stderr, `invalid --lang "xx": want fr or en`) {
		t.Errorf("demo --lang xx in English: %q", r.stderr)
	}
	langCase{
		args: []string{"demo", "--lang", "xx"},
		en:   "want fr or en", fr: "il faut fr ou en",
		help:   []string{"demo"},
		helpEN: "into a scratch data directory", helpFR: "dans un répertoire de données provisoire",
	}.check(t)
}

func TestPendingApproveDenySpeakTheRunsLanguage(t *testing.T) {
	langCase{
		args: []string{"sessions", "pending"},
		en:   "no pending permission requests", fr: "aucune demande d'autorisation en attente",
		help:   []string{"sessions", "pending"},
		helpEN: "list the requests of this session only", helpFR: "liste les demandes de cette session seulement",
	}.check(t)
	langCase{
		args: []string{"sessions", "approve", "s-1", "x"},
		en:   `invalid PERMISSION "x": want the request's number`, fr: `PERMISSION "x" invalide : il faut le numéro de la demande`,
		help:   []string{"sessions", "approve"},
		helpEN: "The turn that asked, in whichever process runs it, resumes with the answer.", helpFR: "Le tour qui a demandé, quel que soit le processus qui l'exécute,",
	}.check(t)
	langCase{
		args: []string{"sessions", "deny", "s-1", "s-2/3"},
		en:   "permission request s-2/3 is not one of session s-1", fr: "la demande d'autorisation s-2/3 n'appartient pas à la session s-1",
		help:   []string{"sessions", "deny"},
		helpEN: "why, for the model", helpFR: "pourquoi, pour le modèle",
	}.check(t)
}
