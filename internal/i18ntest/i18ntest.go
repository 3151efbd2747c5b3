// Package i18ntest checks, for the tests of a package that writes texts
// for people, that every text it translates has its French: it reads the
// package's sources, finds the translation calls and looks each text up in
// i18n's catalogues.
package i18ntest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/i18n"
)

// Sources parses the non-test Go files of the current directory (the
// package under test).
func Sources(tb testing.TB) (*token.FileSet, []*ast.File) {
	tb.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		tb.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// ConstString evaluates a string literal or a sum of them.
func ConstString(e ast.Expr) (string, bool) {
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
		a, ok1 := ConstString(v.X)
		b, ok2 := ConstString(v.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return ConstString(v.X)
	}
	return "", false
}

// I18nCall is the text argument of i18n.Tr and i18n.Trf.
func I18nCall(call *ast.CallExpr) (ast.Expr, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "Tr" && sel.Sel.Name != "Trf") || len(call.Args) < 2 {
		return nil, false
	}
	if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "i18n" {
		return nil, false
	}
	return call.Args[1], true
}

// CheckTranslated fails tb for each call of files that text says
// translates a text whose argument is not a constant string or has no
// French; skip leaves out a node and what it holds. It returns how many
// texts it checked.
func CheckTranslated(tb testing.TB, fset *token.FileSet, files []*ast.File, text func(*ast.CallExpr) (ast.Expr, bool), skip func(ast.Node) bool) int {
	tb.Helper()
	checked := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if skip != nil && n != nil && skip(n) {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			arg, ok := text(call)
			if !ok {
				return true
			}
			s, ok := ConstString(arg)
			if !ok {
				tb.Errorf("%s: a translated text must be a constant string, so its translation can be checked", fset.Position(arg.Pos()))
				return true
			}
			checked++
			if _, ok := i18n.French(s); !ok {
				tb.Errorf("%s: no French for %q", fset.Position(arg.Pos()), s)
			}
			return true
		})
	}
	return checked
}
