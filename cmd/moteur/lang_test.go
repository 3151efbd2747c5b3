package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/internal/i18ntest"
)

// treeIn builds the command tree as a run in language l sees it.
func treeIn(l i18n.Lang) *cobra.Command {
	c := newCLI(envMap(nil), strings.NewReader(""), new(strings.Builder), new(strings.Builder))
	c.lang = l
	return c.rootCmd()
}

// commandsOf lists cmd and its descendants by path, hidden ones included
// when they are reachable (completion is cobra's and hidden).
func commandsOf(cmd *cobra.Command, out map[string]*cobra.Command) {
	out[cmd.CommandPath()] = cmd
	for _, sub := range cmd.Commands() {
		commandsOf(sub, out)
	}
}

// onlyCommands reports that an example holds command lines only: they read
// the same in every language.
func onlyCommands(example string) bool {
	for _, line := range strings.Split(example, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "moteur ") && !strings.HasPrefix(t, "MOTEUR_") && !strings.HasPrefix(t, "curl ") {
			return false
		}
	}
	return true
}

// Every help text — each command's short and long text and examples, each
// flag's usage, cobra's own headings — is in French in a French run:
// the English text has a translation and the French tree shows it.
func TestHelpIsInTheRunsLanguage(t *testing.T) {
	en, fr := map[string]*cobra.Command{}, map[string]*cobra.Command{}
	commandsOf(treeIn(i18n.EN), en)
	commandsOf(treeIn(i18n.FR), fr)
	var missing []string
	check := func(where, english, french string) {
		if english == "" {
			return
		}
		want, ok := i18n.French(english)
		if !ok {
			missing = append(missing, where+": "+strconv.Quote(english))
			return
		}
		if french != want {
			t.Errorf("%s: the French tree shows %q, want %q", where, french, want)
		}
	}
	for path, e := range en {
		if e.Hidden || e.Name() == "completion" || strings.Contains(path, " completion") {
			continue
		}
		f := fr[path]
		if f == nil {
			t.Errorf("%s: missing from the French tree", path)
			continue
		}
		check(path+" short", e.Short, f.Short)
		check(path+" long", e.Long, f.Long)
		if !onlyCommands(e.Example) {
			check(path+" example", e.Example, f.Example)
		}
		fflags := flagUsages(f)
		for name, usage := range flagUsages(e) {
			if name == "help" || name == "version" {
				continue // cobra's, translated by translateCobra from a format
			}
			check(path+" --"+name, usage, fflags[name])
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no French for %s", m)
	}
}

// cobra's own texts follow the language too.
func TestCobraTextsAreTranslated(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:9")
	h.env["MOTEUR_LANG"] = "fr"
	r := h.run(t, "sessions", "--help")
	for _, want := range []string{"Utilisation :", "Commandes disponibles :", "aide pour sessions"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("moteur sessions --help in French lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, english := range []string{"Usage:", "Available Commands:", "help for", "Flags:"} {
		if strings.Contains(r.stdout, english) {
			t.Errorf("moteur sessions --help in French shows %q:\n%s", english, r.stdout)
		}
	}
	r = h.run(t, "--lang", "en", "sessions", "--help")
	if !strings.Contains(r.stdout, "Available Commands:") {
		t.Errorf("--lang en: the help is not in English:\n%s", r.stdout)
	}
}

// flagUsages lists cmd's own flags and their usage texts.
func flagUsages(cmd *cobra.Command) map[string]string {
	out := make(map[string]string)
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) { out[f.Name] = f.Usage })
	return out
}

// translation reports whether call translates a text (c.tr, c.trf,
// i18n.Tr, i18n.Trf) and which argument holds it.
func translation(call *ast.CallExpr) (ast.Expr, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	switch sel.Sel.Name {
	case "tr", "trf":
		if len(call.Args) > 0 {
			return call.Args[0], true
		}
	case "Tr", "Trf":
		return i18ntest.I18nCall(call)
	}
	return nil, false
}

// Every text the code translates has its French translation.
func TestEveryTranslatedTextHasFrench(t *testing.T) {
	fset, files := i18ntest.Sources(t)
	// The translation itself: its text is a parameter.
	skip := func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		return ok && fn.Recv != nil && (fn.Name.Name == "tr" || fn.Name.Name == "trf")
	}
	if i18ntest.CheckTranslated(t, fset, files, translation, skip) == 0 {
		t.Fatal("no translated text found: the check looked at nothing")
	}
}

// proseText matches a text a person reads: three words in a row.
var proseText = regexp.MustCompile(`[A-Za-z']{2,}[ ,;:]+[A-Za-z']{2,}[ ,;:]+[A-Za-z']{2,}`)

// untranslated are the strings that read as prose but are not addressed to
// a person in the run's language, with why. Each group of commands adds
// its own (lang_*_test.go).
var untranslated = map[string]string{
	`Use "{{.CommandPath}} [command] --help" for more information about a command.`: "cobra's template line, replaced by its translation",
	"Additional help topics:": "cobra's template heading, replaced by its translation",
}

// exempt adds strings to untranslated; called from the test files' init.
func exempt(m map[string]string) {
	for s, why := range m {
		untranslated[s] = why
	}
}

// No text a person reads is left out of the translation: a string literal
// that reads as prose is either translated or listed, with its reason, in
// untranslated.
func TestNoProseOutsideTheCatalogue(t *testing.T) {
	fset, files := i18ntest.Sources(t)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.ImportSpec, *ast.Field:
				return false // import paths, struct tags
			case *ast.CallExpr:
				if _, ok := translation(v); ok {
					return false
				}
			case *ast.BasicLit:
				if v.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(v.Value)
				if err == nil && proseText.MatchString(s) && !onlyCommands(s) {
					if _, ok := untranslated[s]; !ok {
						t.Errorf("%s: %q reads as prose: translate it (c.tr, c.trf) or list it in untranslated with why", fset.Position(v.Pos()), s)
					}
				}
			}
			return true
		})
	}
}

// cobra's checks of positional arguments and of the root's commands are
// worded in the run's language too, as usage errors.
func TestArgumentErrorsInTheRunsLanguage(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:9")
	for _, tc := range []struct {
		lang string
		args []string
		want string
	}{
		{"fr", []string{"kb", "rm"}, "prend au moins 1 argument(s), reçu 0"},
		{"en", []string{"kb", "rm"}, "takes at least 1 argument(s), got 0"},
		{"fr", []string{"version", "x"}, `ne prend pas d'argument, reçu "x"`},
		{"fr", []string{"sesions"}, `commande "sesions" inconnue pour "moteur" ; vouliez-vous dire "sessions" ?`},
		{"en", []string{"sesions"}, `unknown command "sesions" for "moteur"; did you mean "sessions"?`},
	} {
		h.env["MOTEUR_LANG"] = tc.lang
		r := h.run(t, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s moteur %v: exit %d, stderr %q; want %d and %q", tc.lang, tc.args, r.code, r.stderr, exitUsage, tc.want)
		}
	}
}
