package main

import (
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/mcp/serve"
)

// The texts of agents, keys, mcp, skills, serve and version that stay as
// they are in every language.
func init() {
	exempt(map[string]string{
		"serve [--addr HOST:PORT]": "cobra's use line: the command's syntax, the same in every language",
	})
}

// inBothLanguages runs args in French, then in English, and checks that
// each run's output holds its language's text and not the other's.
func inBothLanguages(t *testing.T, h *harness, args []string, fr, en string) {
	t.Helper()
	for _, lang := range []struct{ name, want, not string }{{"fr", fr, en}, {"en", en, fr}} {
		h.env["MOTEUR_LANG"] = lang.name
		r := h.run(t, args...)
		out := r.stdout + r.stderr
		if !strings.Contains(out, lang.want) || strings.Contains(out, lang.not) {
			t.Errorf("MOTEUR_LANG=%s moteur %s: want %q, not %q; got exit %d:\n%s",
				lang.name, strings.Join(args, " "), lang.want, lang.not, r.code, out)
		}
	}
}

func TestAgentsSpeakTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"agents", "rm", "support"},
		"agents rm demande confirmation : passez --yes",
		"agents rm asks for confirmation: pass --yes")
	inBothLanguages(t, h, []string{"agents", "edit", "support"},
		"agents edit : rien à modifier",
		"agents edit: nothing to change")
	inBothLanguages(t, h, []string{"agents", "create", "--help"},
		"Créer un agent personnalisé, enregistré dans",
		"Create a custom agent, stored in")
	inBothLanguages(t, h, []string{"agents", "--help"},
		"Lister les agents intégrés et personnalisés",
		"List the built-in and custom agents")
}

func TestKeysSpeakTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"keys", "list"},
		"Aucune clé d'API pour l'instant",
		"No API key yet")
	inBothLanguages(t, h, []string{"keys", "create", "--help"},
		"une base de connaissances permise à la clé",
		"a knowledge base the key may use")
}

func TestMCPSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"mcp", "list"},
		"aucun serveur MCP configuré",
		"no MCP server configured")
	inBothLanguages(t, h, []string{"mcp", "serve", "--help"},
		"Servir les bases de connaissances en serveur MCP",
		"Serve the knowledge bases as an MCP server")
}

// mcp serve's help writes serve.Path out, in both languages: the two must
// agree.
func TestMCPServeHelpNamesThePath(t *testing.T) {
	h := newHarness(t, noModel)
	for _, lang := range []string{"fr", "en"} {
		h.env["MOTEUR_LANG"] = lang
		r := h.run(t, "mcp", "serve", "--help")
		if want := "http://ADDR" + serve.Path + ")"; !strings.Contains(r.stdout, want) {
			t.Errorf("MOTEUR_LANG=%s: mcp serve --help lacks %q:\n%s", lang, want, r.stdout)
		}
	}
}

func TestSkillsSpeakTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"skills", "list"},
		"aucun skill (paquets SKILL.md",
		"no skills (SKILL.md packages")
	inBothLanguages(t, h, []string{"skills", "--help"},
		"Lister les skills offerts à une session ici",
		"List the skills a session here is offered")
}

// serve, interrupted as soon as it listens (the interrupt waits on its
// channel), says where it serves and that it stopped in the run's
// language.
func TestServeSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	for _, lang := range []struct{ name, serving, stopped string }{
		{"fr", "moteur : en service sur http://127.0.0.1:", "moteur : arrêté"},
		{"en", "moteur: serving on http://127.0.0.1:", "moteur: stopped"},
	} {
		h.env["MOTEUR_LANG"] = lang.name
		h.interrupts = make(chan os.Signal, 1)
		h.interrupts <- os.Interrupt
		r := h.run(t, "serve", "--addr", "127.0.0.1:0", "--grace", "1s")
		if r.code != 0 || !strings.Contains(r.stderr, lang.serving) || !strings.Contains(r.stderr, lang.stopped) {
			t.Errorf("MOTEUR_LANG=%s moteur serve: want %q and %q; exit %d:\n%s", lang.name, lang.serving, lang.stopped, r.code, r.stderr)
		}
	}
	h.interrupts = nil
	inBothLanguages(t, h, []string{"serve", "--help"},
		"le temps laissé aux tours en cours pour finir à l'arrêt",
		"how long running turns may take to finish at shutdown")
}

// version prints no prose of its own but its help.
func TestVersionSpeaksTheRunsLanguage(t *testing.T) {
	h := newHarness(t, noModel)
	inBothLanguages(t, h, []string{"version", "--help"},
		"Afficher la version de moteur",
		"Print the version of moteur")
	inBothLanguages(t, h, []string{"version", "--help"},
		"afficher la version en objet JSON",
		"print the version as a JSON object")
}
