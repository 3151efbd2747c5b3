package corpus

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// renderGo makes one document of a Go file's comments, in source order:
// the package's doc comment, then every other comment group, licence
// headers left out. A doc comment's headings ("# Heading", Go 1.19) become
// the document's headings, and with the package doc's first sentence they
// become queries.
func renderGo(path string) (*document, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	rel := path
	if i := strings.LastIndex(path, "/src/"); i >= 0 {
		rel = path[i+len("/src/"):]
	}
	d := &document{name: fileName(strings.TrimSuffix(rel, ".go"))}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Go package %s: %s\n\n", f.Name.Name, filepath.ToSlash(rel))
	body := 0
	for _, cg := range f.Comments {
		text := cg.Text()
		if strings.HasPrefix(text, "Copyright ") || strings.TrimSpace(text) == "" {
			continue
		}
		if cg == f.Doc {
			if q := firstSentence(text, f.Name.Name); q != "" {
				d.queries = append(d.queries, q)
			}
		}
		for line := range strings.Lines(text) {
			if h, ok := strings.CutPrefix(line, "# "); ok {
				sb.WriteString("## " + h)
				if q := queryText(h); q != "" {
					d.queries = append(d.queries, q)
				}
				continue
			}
			// A comment's own indentation is code in Go doc comments, as
			// in Markdown; any other line starting with '#' is text.
			if strings.HasPrefix(line, "#") {
				line = `\` + line
			}
			sb.WriteString(line)
		}
		sb.WriteString("\n")
		body += len(text)
	}
	if body < minBody {
		return nil, nil
	}
	d.body = []byte(sb.String())
	return d, nil
}

// firstSentence is the package doc's first sentence without its
// "Package name" opening: "implements access to tar archives".
func firstSentence(doc, name string) string {
	s, _, _ := strings.Cut(strings.ReplaceAll(doc, "\n", " "), ". ")
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	s = strings.TrimPrefix(s, "Package "+name+" ")
	return queryText(s)
}
