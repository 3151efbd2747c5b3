package corpus

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// kind is where a document comes from.
type kind int

const (
	kindGo kind = iota
	kindDoc
	kindMan
	kinds
)

func (k kind) String() string {
	return [...]string{"go", "doc", "man"}[k]
}

// source is one file a document may be made from.
type source struct {
	kind kind
	path string
	size int64
}

// document is a source rendered as Markdown, with the queries it offers.
type document struct {
	name    string // file name, ending in .md
	body    []byte
	queries []string
}

// Bounds on what becomes a document: a file smaller says too little to be
// searched for, a larger one is a data dump rather than documentation.
const (
	minBody = 300
	maxFile = 4 << 20
)

// listSources lists the candidate files of every kind, sorted by path.
func listSources(src Sources) ([]source, error) {
	var out []source
	add := func(k kind, root string, keep func(path string, d fs.DirEntry) bool) error {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped
			}
			if d.IsDir() {
				switch d.Name() {
				case "testdata", "vendor":
					return filepath.SkipDir
				}
				return nil
			}
			if !keep(path, d) {
				return nil
			}
			st, err := os.Stat(path) // follows links; a dangling one is skipped
			if err != nil || !st.Mode().IsRegular() || st.Size() > maxFile {
				return nil
			}
			out = append(out, source{kind: k, path: path, size: st.Size()})
			return nil
		})
		if err != nil {
			return fmt.Errorf("corpus: list %s: %w", root, err)
		}
		return nil
	}
	if err := add(kindGo, filepath.Join(src.GoRoot, "src"), func(p string, d fs.DirEntry) bool {
		return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go")
	}); err != nil {
		return nil, err
	}
	if err := add(kindDoc, src.Doc, func(p string, d fs.DirEntry) bool { return docFile(d.Name()) }); err != nil {
		return nil, err
	}
	for s := 1; s <= 8; s++ {
		dir := filepath.Join(src.Man, fmt.Sprintf("man%d", s))
		if err := add(kindMan, dir, func(p string, d fs.DirEntry) bool {
			return d.Type()&fs.ModeSymlink == 0 // a link is another name of a page listed already
		}); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// docFile tells the texts of /usr/share/doc worth reading: plain text and
// Markdown, compressed or not. Licences (copyright) and change logs are
// left out: the same few texts repeated in every package, or lists of
// version numbers.
func docFile(name string) bool {
	name = strings.TrimSuffix(name, ".gz")
	lower := strings.ToLower(name)
	if lower == "copyright" || strings.Contains(lower, "changelog") || strings.HasPrefix(lower, "changes") {
		return false
	}
	switch filepath.Ext(lower) {
	case ".md", ".markdown", ".txt":
		return true
	case "":
		return strings.HasPrefix(lower, "readme") || lower == "news" || lower == "todo" || lower == "faq"
	}
	return false
}

// readText reads a file, gunzipping a .gz, and refuses what is not UTF-8
// text.
func readText(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, maxFile+1))
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if len(data) > maxFile {
			return "", fmt.Errorf("%s: over %d MiB uncompressed", path, maxFile>>20)
		}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", fmt.Errorf("%s: not UTF-8 text", path)
	}
	return string(data), nil
}

// render makes the source's document; nil when it holds too little text.
func (s source) render() (*document, error) {
	switch s.kind {
	case kindGo:
		return renderGo(s.path)
	case kindDoc:
		return renderDoc(s.path)
	default:
		return renderMan(s.path)
	}
}

// fileName turns a path into a flat, safe file name.
func fileName(parts ...string) string {
	name := strings.Join(parts, "_")
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
	if len(name) > 120 {
		name = name[:120]
	}
	return name + ".md"
}

// renderDoc keeps a Markdown text as it is and gives a plain text its
// package and file name as a title; a Markdown text's headings become
// queries.
func renderDoc(path string) (*document, error) {
	text, err := readText(path)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(text)) < minBody {
		return nil, nil
	}
	rel := strings.TrimPrefix(path, "/usr/share/doc/")
	base := strings.TrimSuffix(filepath.Base(rel), ".gz")
	pkg := filepath.Dir(rel)
	d := &document{name: fileName(pkg, base)}
	lower := strings.ToLower(base)
	isMD := strings.HasSuffix(lower, ".md") || strings.HasSuffix(lower, ".markdown")
	var sb strings.Builder
	if !isMD || !strings.HasPrefix(strings.TrimSpace(text), "# ") {
		fmt.Fprintf(&sb, "# %s: %s\n\n", pkg, strings.TrimSuffix(base, filepath.Ext(base)))
	}
	sb.WriteString(text)
	d.body = []byte(sb.String())
	if isMD {
		for line := range strings.Lines(text) {
			if h, ok := strings.CutPrefix(line, "## "); ok {
				if q := queryText(h); q != "" {
					d.queries = append(d.queries, q)
				}
			}
		}
	}
	return d, nil
}

// queryText keeps a heading or a one-line description as a query when it
// has between 2 and 10 words, nearly all letters (not code).
func queryText(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "#*`_"))
	words := strings.Fields(s)
	if len(words) < 2 || len(words) > 10 {
		return ""
	}
	letters := 0
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ' {
			letters++
		}
	}
	if letters*10 < utf8.RuneCountInString(s)*8 {
		return ""
	}
	return strings.Join(words, " ")
}
