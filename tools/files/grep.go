package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/moteur/moteur/redact"
	"github.com/moteur/moteur/tools"
)

// grep limits.
const (
	defaultGrepResults = 100
	maxGrepResults     = 500
	// maxGrepLine cuts a matching line for display; the part around the
	// match is kept.
	maxGrepLine = 300
	// maxGrepFile skips larger files (logs, dumps) rather than reading
	// them whole; the result says how many were skipped.
	maxGrepFile = 16 << 20
)

const grepDescription = `Search file contents with a regular expression (RE2 syntax, as in Go: no backreferences or lookaround).

- pattern: the regular expression. "^" and "$" match at line starts and ends. Use (?i) at the start for a case-insensitive search. Escape regex characters to search literal text, e.g. "foo\\(".
- path: a file or directory to search, relative to the project root (default: the whole project).
- glob: only search files whose path matches this glob, e.g. "*.go" (a pattern without "/" matches the file name at any depth), "src/**/*.ts" (relative to the project root).
- max_results: how many matching lines to return (default 100, maximum 500).

Returns one line per matching line, "path:line:text", files in lexical order. Long lines are cut around the match. When there are more matches, a last line "… N more matches" says so: narrow the pattern, the path or the glob. Files ignored by .gitignore, the .git directory, binary files and symbolic links are skipped (a path naming a file explicitly is searched even if ignored). Secrets (private keys, API keys, tokens, passwords) are masked as [REDACTED:<kind>] before the search: a pattern cannot match inside one.`

const grepSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "Regular expression (RE2) to search for."},
    "path": {"type": "string", "description": "File or directory to search, relative to the project root (default: the root)."},
    "glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.go\" or \"src/**/*.ts\"."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Maximum number of matching lines to return (default 100)."}
  },
  "required": ["pattern"]
}`

// Grep is the grep tool.
type Grep struct{ s *Set }

// Name implements tools.Tool.
func (*Grep) Name() string { return GrepName }

// Description implements tools.Tool.
func (*Grep) Description() string { return grepDescription }

// Schema implements tools.Tool.
func (*Grep) Schema() json.RawMessage { return json.RawMessage(grepSchema) }

// Risk implements tools.Tool.
func (*Grep) Risk() effect.Risk { return effect.RiskRead }

// Concurrent implements tools.Tool.
func (*Grep) Concurrent() bool { return true }

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	MaxResults *int   `json:"max_results"`
}

// Execute runs the search.
func (t *Grep) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a grepArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("grep: %w", err)
	}
	limit := defaultGrepResults
	if a.MaxResults != nil {
		limit = min(max(*a.MaxResults, 1), maxGrepResults)
	}
	out, rule, err := t.s.grep(ctx, a, limit)
	return answer(GrepName, tools.Result{Content: out}, rule, err)
}

// grepRun is one search's state.
type grepRun struct {
	s     *Set
	re    *regexp.Regexp
	glob  string
	limit int
	out   strings.Builder
	shown int
	total int // matching lines, shown or not
	files int // files with a match
	large []string
	buf   []byte // reused between files
	rule  string // of the first classified file the result names
}

// grep returns the search's result and the classification rule of the
// first classified file it names.
func (s *Set) grep(ctx context.Context, a grepArgs, limit int) (string, string, error) {
	// Multi-line mode so that ^ and $ mean line starts and ends: the whole
	// file is searched in one pass, not line by line.
	re, err := regexp.Compile("(?m)" + a.Pattern)
	if err != nil {
		return "", "", fmt.Errorf("invalid regular expression %q: %w", a.Pattern, err)
	}
	g := &grepRun{s: s, re: re, limit: limit}
	if a.Glob != "" {
		g.glob, err = s.cleanPattern(a.Glob)
		if err != nil {
			return "", "", fmt.Errorf("glob: %w", err)
		}
	}
	where := a.Path
	if where == "" {
		where = "."
	}
	tg, err := s.resolve(where)
	if err != nil {
		return "", "", err
	}
	fi, err := s.dir.Lstat(tg.os())
	if err != nil {
		return "", "", describe(tg, "search", err)
	}
	switch {
	case fi.Mode().IsRegular():
		// Named explicitly: searched even if .gitignore excludes it.
		if err := g.file(ctx, s.dir, filepath.FromSlash(tg.rel), tg.rel); err != nil {
			return "", "", err
		}
	case fi.IsDir():
		if err := s.walk(ctx, tg.rel, func(dir *os.Root, name, rel string) error { return g.file(ctx, dir, name, rel) }); err != nil {
			return "", "", err
		}
	default:
		return "", "", fmt.Errorf("%s is neither a file nor a directory (%s)", tg.arg, fi.Mode().Type())
	}
	return g.result(a.Pattern, tg.rel), g.rule, nil
}

func (g *grepRun) result(pattern, where string) string {
	b := &g.out
	if g.total == 0 {
		b.Reset()
		fmt.Fprintf(b, "No matches for %q in %s (files ignored by .gitignore, .git/, binary files and symbolic links are not searched).", pattern, where)
	} else if g.total > g.shown {
		fmt.Fprintf(b, "… %d more matches (%d matching lines in %s in all): narrow the pattern, path or glob\n", g.total-g.shown, g.total, plural(g.files, "file"))
	}
	if len(g.large) > 0 {
		if g.total == 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(b, "Not searched, over %d MiB: %s\n", maxGrepFile>>20, strings.Join(g.large, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// file searches the file name of dir, shown as rel.
func (g *grepRun) file(ctx context.Context, dir *os.Root, name, rel string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if g.glob != "" {
		subject := rel
		if !strings.Contains(g.glob, "/") {
			subject = path.Base(rel)
		}
		if !doublestar.MatchUnvalidated(g.glob, subject) {
			return nil
		}
	}
	f, err := dir.Open(name)
	if err != nil {
		return nil // removed or unreadable since listed: not a reason to fail
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if fi.Size() > maxGrepFile {
		g.large = append(g.large, rel)
		g.s.meet(&g.rule, rel) // named in the result
		return nil
	}
	// One buffer for the whole search: a tree of small files costs one
	// allocation, not one per file. The file is read up to the size its
	// Stat gave: a file growing meanwhile is searched as it was.
	n := int(fi.Size())
	if cap(g.buf) < n {
		g.buf = make([]byte, n)
	}
	m, err := io.ReadFull(f, g.buf[:n])
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil
	}
	data := g.buf[:m]
	if looksBinary(data) || !g.re.Match(data) {
		return nil
	}
	// The file has a match. Its secrets are masked before the search that
	// is reported (lines kept, so the numbers stay true): a pattern that
	// matches only inside a secret then finds nothing, so no sequence of
	// searches can read a key out one guess at a time.
	text := string(data)
	if masked, kinds := redact.Lines(text); kinds != nil {
		data = []byte(masked)
	}
	g.search(rel, data, text)
	return nil
}

// search reports the lines of data the expression matches. pos always sits
// at a line start, so "^" in multi-line mode keeps its meaning on the
// sub-slice; each line is reported once however many matches it holds.
//
// text is the file's text as it is on disk: a file the result draws on is
// classified by it (see classify.go).
func (g *grepRun) search(rel string, data []byte, text string) {
	matched := false
	line, counted := 1, 0 // line number of offset counted
	for pos := 0; pos < len(data); {
		loc := g.re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		start, end := pos+loc[0], pos+loc[1]
		if start == len(data) && data[len(data)-1] == '\n' {
			break // an empty match after the last newline is no line
		}
		line += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		ls := pos + bytes.LastIndexByte(data[pos:start], '\n') + 1
		le := bytes.IndexByte(data[start:], '\n')
		if le < 0 {
			le = len(data)
		} else {
			le += start
		}
		g.total++
		if !matched {
			matched = true
			g.files++
			// Counted matches say something of the file's content too,
			// even past the lines shown.
			g.s.meet(&g.rule, rel)
			g.s.meetText(&g.rule, text)
		}
		if g.shown < g.limit {
			g.shown++
			g.out.WriteString(rel)
			fmt.Fprintf(&g.out, ":%d:", line)
			writeGrepLine(&g.out, data[ls:le], start-ls)
			g.out.WriteByte('\n')
		}
		// Go on after the line where the match ends: a match across lines
		// is reported once, at its first line.
		last := max(start, end-1)
		nl := bytes.IndexByte(data[last:], '\n')
		if nl < 0 {
			break
		}
		pos = last + nl + 1
	}
}

// writeGrepLine writes a matching line, cut to maxGrepLine bytes around the
// match at col, and valid UTF-8.
func writeGrepLine(b *strings.Builder, line []byte, col int) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= maxGrepLine {
		b.WriteString(strings.ToValidUTF8(string(line), "\uFFFD"))
		return
	}
	from := max(0, min(col-maxGrepLine/3, len(line)-maxGrepLine))
	for from > 0 && from < len(line) && !utf8.RuneStart(line[from]) {
		from--
	}
	part := cutUTF8(line[from:], maxGrepLine)
	if from > 0 {
		b.WriteString("…")
	}
	b.WriteString(strings.ToValidUTF8(string(part), "\uFFFD"))
	if from+len(part) < len(line) {
		fmt.Fprintf(b, "… [%d bytes]", len(line))
	}
}
