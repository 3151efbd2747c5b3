package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/moteur/moteur/tools"
)

// list_files limits.
const (
	defaultListEntries = 200
	maxListEntries     = 500
	// listBatch is how many entries are read from the directory at a time:
	// a directory of a million files is listed without holding them all.
	listBatch = 1024
)

const listDescription = `List the entries of one directory of the project (not recursive).

- path: the directory, relative to the project root (default: the root).
- max_entries: how many entries to return (default 200, maximum 500).

Entries are sorted by name, one per line. Directories end with "/", symbolic links with "@" (they are not followed). When the directory holds more, a last line "… N more entries" says so. Every entry is listed, including those .gitignore excludes. To find files across directories use glob; to read one use read_file.`

const listSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list, relative to the project root (default: the root)."},
    "max_entries": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Maximum number of entries to return (default 200)."}
  }
}`

// ListFiles is the list_files tool.
type ListFiles struct{ s *Set }

// Name implements tools.Tool.
func (*ListFiles) Name() string { return ListFilesName }

// Description implements tools.Tool.
func (*ListFiles) Description() string { return listDescription }

// Schema implements tools.Tool.
func (*ListFiles) Schema() json.RawMessage { return json.RawMessage(listSchema) }

// Risk implements tools.Tool.
func (*ListFiles) Risk() effect.Risk { return effect.RiskRead }

// Concurrent implements tools.Tool.
func (*ListFiles) Concurrent() bool { return true }

type listArgs struct {
	Path       string `json:"path"`
	MaxEntries *int   `json:"max_entries"`
}

// Execute lists the directory.
func (t *ListFiles) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a listArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("list_files: %w", err)
	}
	limit := defaultListEntries
	if a.MaxEntries != nil {
		limit = min(max(*a.MaxEntries, 1), maxListEntries)
	}
	out, rule, err := t.s.list(ctx, a.Path, limit)
	return answer(ListFilesName, tools.Result{Content: out}, rule, err)
}

// list returns the listing and the classification rule of the first
// classified entry it names or counts.
func (s *Set) list(ctx context.Context, dir string, limit int) (string, string, error) {
	if dir == "" {
		dir = "."
	}
	tg, err := s.resolve(dir)
	if err != nil {
		return "", "", err
	}
	fi, err := s.dir.Lstat(tg.os())
	if err != nil {
		return "", "", describe(tg, "list", err)
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("%s is not a directory: use read_file to read a file", tg.arg)
	}
	f, err := s.dir.Open(tg.os())
	if err != nil {
		return "", "", describe(tg, "list", err)
	}
	defer f.Close()

	// Keep the smallest names only: sort and cut whenever the kept set
	// doubles, so memory stays O(limit) and time O(n log limit).
	var kept []string
	total := 0
	rule := ""
	for {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		batch, err := f.ReadDir(listBatch)
		for _, d := range batch {
			kept = append(kept, d.Name()+typeMark(d.Type()))
			total++
			// Every entry, kept or not: the count of those cut says
			// something of the directory too. A subdirectory is asked
			// as "dir/", as it is listed.
			s.meet(&rule, entryPath(tg.rel, d))
		}
		if len(kept) > 2*limit {
			slices.Sort(kept)
			kept = kept[:limit]
		}
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return "", "", describe(tg, "list", err)
		}
	}
	slices.Sort(kept)
	kept = kept[:min(len(kept), limit)]

	shown := tg.rel + "/"
	if tg.rel == "." {
		shown = "./"
	}
	var b strings.Builder
	if total == 0 {
		fmt.Fprintf(&b, "%s: empty directory", shown)
		return b.String(), "", nil
	}
	fmt.Fprintf(&b, "%s: %s\n", shown, plural(total, "entry"))
	for _, k := range kept {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	if total > len(kept) {
		fmt.Fprintf(&b, "… %d more entries (the first %d by name are shown)\n", total-len(kept), len(kept))
	}
	return strings.TrimSuffix(b.String(), "\n"), rule, nil
}

// entryPath is the slash path of dir's entry d, relative to the root, for
// Classify: a directory's ends with "/".
func entryPath(dir string, d fs.DirEntry) string {
	rel := path.Join(dir, d.Name())
	if d.IsDir() {
		rel += "/"
	}
	return rel
}

// typeMark is the suffix "ls -F" gives an entry of type t.
func typeMark(t fs.FileMode) string {
	switch {
	case t.IsDir():
		return "/"
	case t&fs.ModeSymlink != 0:
		return "@"
	case t&fs.ModeNamedPipe != 0:
		return "|"
	case t&fs.ModeSocket != 0:
		return "="
	}
	return ""
}
