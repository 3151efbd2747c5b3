package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/moteur/moteur/tools"
)

// glob limits.
const (
	defaultGlobResults = 200
	maxGlobResults     = 1000
)

const globDescription = `Find files of the project whose path matches a glob pattern.

- pattern: relative to the project root, slash-separated. "*" matches within one path segment, "**" any number of directories, "?" one character, "[abc]" a set, "{a,b}" alternatives. Examples: "**/*.go", "src/**/*_test.py", "docs/*.{md,txt}".
- max_results: how many paths to return (default 200, maximum 1000).

Returns matching files (not directories), one path per line in lexical order (directory by directory), followed by "… N more files" when there are more: narrow the pattern then. Files ignored by .gitignore, the .git directory and symbolic links are skipped. To see a directory's entries, use list_files; to search file contents, use grep.`

const globSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "Glob pattern relative to the project root, e.g. \"**/*.go\"."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Maximum number of paths to return (default 200)."}
  },
  "required": ["pattern"]
}`

// Glob is the glob tool.
type Glob struct{ s *Set }

// Name implements tools.Tool.
func (*Glob) Name() string { return GlobName }

// Description implements tools.Tool.
func (*Glob) Description() string { return globDescription }

// Schema implements tools.Tool.
func (*Glob) Schema() json.RawMessage { return json.RawMessage(globSchema) }

// Risk implements tools.Tool.
func (*Glob) Risk() effect.Risk { return effect.RiskRead }

// Concurrent implements tools.Tool.
func (*Glob) Concurrent() bool { return true }

type globArgs struct {
	Pattern    string `json:"pattern"`
	MaxResults *int   `json:"max_results"`
}

// Execute lists the matching files.
func (t *Glob) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a globArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("glob: %w", err)
	}
	limit := defaultGlobResults
	if a.MaxResults != nil {
		limit = min(max(*a.MaxResults, 1), maxGlobResults)
	}
	out, rule, err := t.s.glob(ctx, a.Pattern, limit)
	return answer(GlobName, tools.Result{Content: out}, rule, err)
}

// glob returns the matching files and the classification rule of the first
// classified one it lists or counts.
func (s *Set) glob(ctx context.Context, pattern string, limit int) (string, string, error) {
	pat, err := s.cleanPattern(pattern)
	if err != nil {
		return "", "", err
	}
	// Walk only below the pattern's literal prefix: "src/**/*.go" need not
	// visit docs/.
	base, _ := doublestar.SplitPattern(pat)
	tg, err := s.resolve(base)
	if err != nil {
		return "", "", fmt.Errorf("pattern %q: %w", pattern, err)
	}
	var matches []string
	total := 0
	rule := ""
	if fi, err := s.dir.Lstat(tg.os()); err == nil && fi.IsDir() {
		err := s.walk(ctx, tg.rel, func(_ *os.Root, _, rel string) error {
			// Matched as the model spelt the base: it may be a symlink to
			// the directory walked.
			shown := rel
			if tg.rel != base {
				shown = path.Join(base, strings.TrimPrefix(strings.TrimPrefix(rel, tg.rel), "/"))
			}
			if doublestar.MatchUnvalidated(pat, shown) {
				total++
				// Counted or listed, a match tells a classified name
				// fits the pattern. rel, not shown: Classify is asked
				// the resolved path.
				s.meet(&rule, rel)
				if len(matches) < limit {
					matches = append(matches, shown)
				}
			}
			return nil
		})
		if err != nil {
			return "", "", err
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", describe(tg, "glob in", err)
	}
	if total == 0 {
		return fmt.Sprintf("No files match %q (files ignored by .gitignore, .git/ and symbolic links are skipped).", pattern), "", nil
	}
	var b strings.Builder
	for _, m := range matches {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if total > len(matches) {
		fmt.Fprintf(&b, "… %d more files (%d match in all): narrow the pattern\n", total-len(matches), total)
	}
	return strings.TrimSuffix(b.String(), "\n"), rule, nil
}

// cleanPattern checks a glob pattern and makes it relative to the root.
// Its literal prefix is confined like any path by the caller; ".." is
// refused outright, since a pattern could climb out after a wildcard where
// resolve does not look.
func (s *Set) cleanPattern(pattern string) (string, error) {
	if strings.IndexByte(pattern, 0) >= 0 {
		return "", fmt.Errorf("pattern %q contains a NUL byte", pattern)
	}
	pat := filepath.ToSlash(pattern)
	if path.IsAbs(pat) || filepath.IsAbs(pattern) {
		rel, ok := stripRoot(pat, filepath.ToSlash(s.root))
		if !ok {
			rel, ok = stripRoot(pat, filepath.ToSlash(s.real))
		}
		if !ok {
			return "", fmt.Errorf("pattern %q is an absolute path outside the project root %s: patterns are relative to it", pattern, s.root)
		}
		pat = rel
	}
	for strings.HasPrefix(pat, "./") {
		pat = strings.TrimLeft(pat[2:], "/")
	}
	if pat == "" || pat == "." {
		return "", fmt.Errorf("pattern %q matches no file: give a pattern such as \"**/*\"", pattern)
	}
	if slices.Contains(strings.Split(pat, "/"), "..") {
		return "", fmt.Errorf("pattern %q uses \"..\": patterns cannot leave the project root", pattern)
	}
	if !doublestar.ValidatePattern(pat) {
		return "", fmt.Errorf("pattern %q is not a valid glob (unbalanced [ ] or { }?)", pattern)
	}
	return pat, nil
}

// stripRoot returns p relative to root when p is below it.
func stripRoot(p, root string) (string, bool) {
	root = strings.TrimSuffix(root, "/")
	if p == root {
		return ".", true
	}
	rest, ok := strings.CutPrefix(p, root+"/")
	return rest, ok
}
