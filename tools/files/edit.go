package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"slices"
	"strconv"
	"strings"

	"github.com/moteur/moteur/tools"
)

// maxEdits bounds one batch; more is a rewrite, better done with
// write_file.
const maxEdits = 100

const editDescription = `Change parts of an existing text file by exact string replacement.

- path: relative to the project root (or absolute inside it).
- edits: a list of {old_string, new_string, replace_all}. Each old_string must match the file's text exactly (whitespace, indentation and line endings included; never the line-number prefixes read_file shows). new_string replaces it. replace_all (default false) replaces every occurrence instead of requiring exactly one.

All edits are located on the file as it is before this call, not one after the other: an edit never sees the text another edit of the same batch inserted. The batch is all or nothing: if any old_string is empty, is not found, is found more than once without replace_all, or overlaps the text of another edit, the whole call fails and the file is left untouched. Include enough surrounding lines in old_string to make it unique. Edits that leave the file unchanged are refused.

Binary files cannot be edited; files stay within 8 MiB. To create a file or replace it wholesale, use write_file.`

const editSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to edit, relative to the project root."},
    "edits": {
      "type": "array",
      "minItems": 1,
      "maxItems": 100,
      "description": "Replacements, all located on the file as it is before the call; applied all together or not at all.",
      "items": {
        "type": "object",
        "properties": {
          "old_string": {"type": "string", "minLength": 1, "description": "Exact text to replace; must occur exactly once unless replace_all is true."},
          "new_string": {"type": "string", "description": "Replacement text (may be empty to delete)."},
          "replace_all": {"type": "boolean", "description": "Replace every occurrence of old_string (default false)."}
        },
        "required": ["old_string", "new_string"]
      }
    }
  },
  "required": ["path", "edits"]
}`

// EditFile is the edit_file tool.
type EditFile struct{ s *Set }

// Name implements tools.Tool.
func (*EditFile) Name() string { return EditFileName }

// Description implements tools.Tool.
func (*EditFile) Description() string { return editDescription }

// Schema implements tools.Tool.
func (*EditFile) Schema() json.RawMessage { return json.RawMessage(editSchema) }

// Risk implements tools.Tool: an edit changes a file recoverably (its old
// content is kept for rewinds).
func (*EditFile) Risk() effect.Risk { return effect.RiskWrite }

// Concurrent implements tools.Tool: edits of one path are serialised by the
// per-path lock.
func (*EditFile) Concurrent() bool { return true }

type edit struct {
	Old        string `json:"old_string"`
	New        string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

type editArgs struct {
	Path  string `json:"path"`
	Edits []edit `json:"edits"`
}

// Execute applies the batch.
func (t *EditFile) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a editArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("edit_file: %w", err)
	}
	res, rule, err := t.s.edit(ctx, a.Path, a.Edits)
	return answer(EditFileName, res, rule, err)
}

// edit returns the call's result and, once the file's content is read, its
// classification rule: from then on, failures too speak of the content
// (where an old_string occurs, or that it does not, or where a NUL is).
func (s *Set) edit(ctx context.Context, path string, edits []edit) (tools.Result, string, error) {
	if len(edits) == 0 {
		return tools.Result{}, "", errors.New("edits is empty: give at least one {old_string, new_string}")
	}
	if len(edits) > maxEdits {
		return tools.Result{}, "", fmt.Errorf("%d edits in one call, over the limit of %d: use write_file to rewrite the file", len(edits), maxEdits)
	}
	tg, err := s.resolve(path)
	if err != nil {
		return tools.Result{}, "", err
	}
	if err := s.refuseSkill(EditFileName, tg); err != nil {
		return tools.Result{}, "", err
	}
	unlock, err := s.locks.lock(ctx, tg.rel)
	if err != nil {
		return tools.Result{}, "", err
	}
	defer unlock()

	// Read from disk, not from the cache: the edit's base must be the
	// file as it is now, whoever changed it last.
	cur, err := s.current(tg, maxWriteBytes, true)
	if err != nil {
		return tools.Result{}, "", err
	}
	if !cur.exists {
		return tools.Result{}, "", fmt.Errorf("%s does not exist: use write_file to create it", tg.arg)
	}
	rule := s.classified(tg.rel)
	if i := bytes.IndexByte(cur.data, 0); i >= 0 {
		return tools.Result{}, rule, fmt.Errorf("%s is a binary file (NUL byte at offset %d): edit_file only changes text", tg.arg, i)
	}
	out, spans, err := applyEdits(cur.data, edits)
	if err != nil {
		return tools.Result{}, rule, fmt.Errorf("no edit applied to %s: %w", tg.arg, err)
	}
	if bytes.Equal(out, cur.data) {
		return tools.Result{}, rule, fmt.Errorf("no edit applied to %s: the edits leave it unchanged", tg.arg)
	}
	change, err := s.commit(ctx, tg, cur, out)
	if err != nil {
		return tools.Result{}, rule, err
	}
	return tools.Result{Content: editSummary(tg.rel, edits, cur.data, out, spans), Changes: []effect.Change{change}}, rule, nil
}

// span is one occurrence an edit replaces, in the original content.
type span struct {
	start, end int
	edit       int // index in the batch
}

// applyEdits locates every edit on the original content and, if each
// matches as required and no two touch the same bytes, returns the content
// with all of them applied, and the spans sorted by position. On error,
// content is untouched (it is never written to).
func applyEdits(content []byte, edits []edit) ([]byte, []span, error) {
	var spans []span
	for i, e := range edits {
		n := i + 1
		if e.Old == "" {
			return nil, nil, fmt.Errorf("edit %d: old_string is empty; it must quote the text to replace", n)
		}
		old := []byte(e.Old)
		if e.ReplaceAll {
			// Non-overlapping occurrences, left to right, as
			// strings.ReplaceAll counts them.
			found := false
			for pos := 0; pos <= len(content)-len(old); {
				j := bytes.Index(content[pos:], old)
				if j < 0 {
					break
				}
				spans = append(spans, span{pos + j, pos + j + len(old), i})
				pos += j + len(old)
				found = true
			}
			if !found {
				return nil, nil, notFound(n, e.Old)
			}
			continue
		}
		j := bytes.Index(content, old)
		if j < 0 {
			return nil, nil, notFound(n, e.Old)
		}
		// The next occurrence is searched from j+1, not past the match:
		// "aa" in "aaa" is at two places, and picking one would be a guess.
		if k := bytes.Index(content[j+1:], old); k >= 0 {
			return nil, nil, ambiguous(content, n, old)
		}
		spans = append(spans, span{j, j + len(old), i})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	size := len(content)
	for k, sp := range spans {
		if k > 0 && sp.start < spans[k-1].end {
			a, b := spans[k-1].edit+1, sp.edit+1
			if a == b {
				// Only possible with replace_all, whose occurrences never
				// overlap; kept for safety.
				return nil, nil, fmt.Errorf("edit %d: occurrences overlap", a)
			}
			return nil, nil, fmt.Errorf("edits %d and %d overlap at line %d: they change the same text; merge them into one edit", min(a, b), max(a, b), lineAt(content, sp.start))
		}
		size += len(edits[sp.edit].New) - (sp.end - sp.start)
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, sp := range spans {
		out = append(out, content[prev:sp.start]...)
		out = append(out, edits[sp.edit].New...)
		prev = sp.end
	}
	out = append(out, content[prev:]...)
	return out, spans, nil
}

func notFound(n int, old string) error {
	return fmt.Errorf("edit %d: old_string not found (%s); it must match the current file exactly, whitespace and indentation included: read the file again", n, quoteShort(old))
}

// ambiguous names the lines of the first occurrences, so the model can add
// the context that tells them apart.
func ambiguous(content []byte, n int, old []byte) error {
	var lines []string
	count := 0
	for pos := 0; pos <= len(content)-len(old); {
		j := bytes.Index(content[pos:], old)
		if j < 0 {
			break
		}
		count++
		if len(lines) < 5 {
			lines = append(lines, strconv.Itoa(lineAt(content, pos+j)))
		}
		pos += j + 1
	}
	more := ""
	if count > len(lines) {
		more = ", …"
	}
	return fmt.Errorf("edit %d: old_string occurs %d times (lines %s%s); add surrounding text to make it unique, or set replace_all to change them all", n, count, strings.Join(lines, ", "), more)
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	const max = 80
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return strconv.Quote(string(cutUTF8([]byte(s), max))) + "…"
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(content []byte, off int) int {
	return bytes.Count(content[:off], []byte{'\n'}) + 1
}

// editSummary says what changed and where in the new file, so the model
// can check the result without reading the whole file again.
func editSummary(rel string, edits []edit, before, after []byte, spans []span) string {
	where := make([][]int, len(edits))
	line, prev, delta := 1, 0, 0
	for _, sp := range spans {
		at := sp.start + delta // where the replacement starts in after
		line += bytes.Count(after[prev:at], []byte{'\n'})
		prev = at
		where[sp.edit] = append(where[sp.edit], line)
		delta += len(edits[sp.edit].New) - (sp.end - sp.start)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s: %s, %s (", rel, plural(len(edits), "edit"), plural(len(spans), "replacement"))
	for i, ls := range where {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "edit %d at line", i+1)
		if len(ls) > 1 {
			b.WriteByte('s')
		}
		for j, l := range ls {
			if j == 5 {
				fmt.Fprintf(&b, ", … (%d in all)", len(ls))
				break
			}
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %d", l)
		}
	}
	fmt.Fprintf(&b, " of the new file). It now has %s, %d bytes (was %d).", plural(countLines(after), "line"), len(after), len(before))
	return b.String()
}

// countLines counts lines as paginate does.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
