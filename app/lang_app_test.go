package app

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
)

// Every text package app translates (i18n.Tr, i18n.Trf) is a constant
// string with a French translation: a French run says nothing in English.
func TestEveryAppTextHasFrench(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Tr" && sel.Sel.Name != "Trf") || len(call.Args) < 2 {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "i18n" {
				return true
			}
			s, ok := constText(call.Args[1])
			if !ok {
				t.Errorf("%s: a translated text must be a constant string, so its translation can be checked", fset.Position(call.Args[1].Pos()))
				return true
			}
			checked++
			if _, ok := i18n.French(s); !ok {
				t.Errorf("%s: no French for %q", fset.Position(call.Args[1].Pos()), s)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no translated text found: the check looked at nothing")
	}
}

// constText evaluates a string literal or a sum of them.
func constText(e ast.Expr) (string, bool) {
	switch v := e.(type) {
	case *ast.BasicLit:
		if v.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(v.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if v.Op != token.ADD {
			return "", false
		}
		a, ok1 := constText(v.X)
		b, ok2 := constText(v.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return constText(v.X)
	}
	return "", false
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
