package files_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"
)

type ed = map[string]any

func edits(es ...ed) map[string]any { return map[string]any{"path": "a.go", "edits": es} }

const source = `package a

func one() int { return 1 }

func two() int { return 2 }

// end
`

// The file a refused batch leaves: same bytes, same mtime, same inode.
func (e *env) refusedEdit(args map[string]any, want ...string) {
	e.t.Helper()
	// An old mtime: a write within the same second could not hide behind
	// an unchanged one.
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(e.path("a.go"), old, old); err != nil {
		e.t.Fatal(err)
	}
	before := e.snap("a.go")
	e.fail("edit_file", args, want...)
	e.unchanged("a.go", before)
}

func TestEditBatch(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", source)
	res := e.ok("edit_file", edits(
		ed{"old_string": "return 2", "new_string": "return 22"},
		ed{"old_string": "func one() int { return 1 }", "new_string": "func one() int {\n\treturn 1\n}"},
	))
	want := "package a\n\nfunc one() int {\n\treturn 1\n}\n\nfunc two() int { return 22 }\n\n// end\n"
	if got := e.get("a.go"); got != want {
		t.Errorf("file =\n%s\nwant\n%s", got, want)
	}
	// Lines are those of the new file.
	contains(t, res.Content, "Edited a.go: 2 edits, 2 replacements", "edit 1 at line 7", "edit 2 at line 3", "9 lines")
}

// Every edit is located on the original: text an edit inserts is invisible
// to the others, and an edit cannot match across another's result.
func TestEditMatchesOnOriginal(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", "alpha beta\n")
	e.ok("edit_file", edits(
		ed{"old_string": "alpha", "new_string": "beta"}, // creates a second "beta"...
		ed{"old_string": "beta", "new_string": "gamma"}, // ...which this one does not see
	))
	if got := e.get("a.go"); got != "beta gamma\n" {
		t.Errorf("file = %q, want %q", got, "beta gamma\n")
	}
}

func TestEditReplaceAll(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", "x := 1\nx++\nfmt.Println(x)\n")
	res := e.ok("edit_file", edits(ed{"old_string": "x", "new_string": "count", "replace_all": true}))
	if got := e.get("a.go"); got != "count := 1\ncount++\nfmt.Println(count)\n" {
		t.Errorf("file = %q", got)
	}
	contains(t, res.Content, "1 edit, 3 replacements", "edit 1 at lines 1, 2, 3")
	// Occurrences are counted without overlap, as strings.ReplaceAll does.
	e.put("a.go", "aaaa")
	e.ok("edit_file", edits(ed{"old_string": "aa", "new_string": "b", "replace_all": true}))
	if got := e.get("a.go"); got != "bb" {
		t.Errorf("file = %q, want bb", got)
	}
}

func TestEditMissRejectsWholeBatch(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", source)
	e.refusedEdit(edits(
		ed{"old_string": "return 1", "new_string": "return 11"},
		ed{"old_string": "return 3", "new_string": "return 33"},
	), "no edit applied to a.go", "edit 2: old_string not found", `"return 3"`)
	// Whitespace matters.
	e.refusedEdit(edits(ed{"old_string": "func  one", "new_string": "x"}), "not found", "whitespace")
}

func TestEditAmbiguityRejected(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", source)
	e.refusedEdit(edits(ed{"old_string": "() int { return", "new_string": "() int64 { return"}),
		"edit 1: old_string occurs 2 times (lines 3, 5)", "replace_all")
	// Overlapping occurrences are ambiguous too: "aa" sits at two places
	// in "aaa".
	e.put("a.go", "aaa\n")
	e.refusedEdit(edits(ed{"old_string": "aa", "new_string": "b"}), "occurs 2 times")
}

func TestEditOverlapRejected(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", source)
	e.refusedEdit(edits(
		ed{"old_string": "func one() int", "new_string": "func uno() int"},
		ed{"old_string": "one() int { return 1 }", "new_string": "one() int { return 0 }"},
	), "edits 1 and 2 overlap at line 3")
	// The same text twice is an overlap, not two edits.
	e.refusedEdit(edits(
		ed{"old_string": "// end", "new_string": "// fin"},
		ed{"old_string": "// end", "new_string": "// fine"},
	), "edits 1 and 2 overlap")
	// replace_all occurrences count too.
	e.refusedEdit(edits(
		ed{"old_string": "return", "new_string": "yield", "replace_all": true},
		ed{"old_string": "return 2", "new_string": "return 3"},
	), "overlap at line 5")
}

func TestEditRefusals(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", source)
	// An empty old_string: refused by the schema for the model...
	e.refusedEdit(edits(ed{"old_string": "", "new_string": "x"}), "old_string")
	// ...and by the tool itself for any other caller.
	tool, _ := e.reg.Lookup("edit_file")
	args, _ := json.Marshal(edits(ed{"old_string": "// end", "new_string": "x"}, ed{"old_string": "", "new_string": "x"}))
	if _, err := tool.Execute(context.Background(), args); err == nil {
		t.Error("empty old_string accepted by Execute")
	} else {
		contains(t, err.Error(), "edit 2: old_string is empty")
	}
	if e.get("a.go") != source {
		t.Error("file changed")
	}
	e.refusedEdit(edits(), "edits")
	e.refusedEdit(edits(ed{"old_string": "one", "new_string": "one"}), "leave it unchanged")
	e.fail("edit_file", map[string]any{"path": "nope.go", "edits": []ed{{"old_string": "a", "new_string": "b"}}}, "nope.go does not exist", "write_file")

	e.put("blob.bin", "text\x00more text")
	before := e.snap("blob.bin")
	e.fail("edit_file", map[string]any{"path": "blob.bin", "edits": []ed{{"old_string": "text", "new_string": "x"}}}, "binary file")
	e.unchanged("blob.bin", before)
}
