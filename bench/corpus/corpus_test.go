package corpus

import (
	"reflect"
	"strings"
	"testing"
)

// TestStripRoff reads a man(7) page: title, sections as headings, fonts
// and glyphs taken out, comments dropped, and the NAME line.
func TestStripRoff(t *testing.T) {
	src := `.\" generated
.TH LS "1" "September 2022" "GNU coreutils 9.1"
.SH NAME
ls \- list directory contents
.SH DESCRIPTION
.PP
List information about the FILEs \(em sort if none of \fB\-cftuvSUX\fR is given. \" hidden
.TP
\fB\-a\fR, \fB\-\-all\fR
.BR ls (1)
`
	title, body, name := stripRoff(src)
	if title != "ls(1)" || name != "ls - list directory contents" {
		t.Errorf("title %q, name %q", title, name)
	}
	for _, want := range []string{"## NAME", "## DESCRIPTION", "List information about the FILEs — sort if none of -cftuvSUX is given.", `\-a, --all`, "ls(1)"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	for _, bad := range []string{`\f`, "generated", "hidden", ".TP"} {
		if strings.Contains(body, bad) {
			t.Errorf("body keeps %q:\n%s", bad, body)
		}
	}
}

// TestLoadIsDeterministic builds the same corpus twice in two caches: the
// same passages and queries, exactly the size asked.
func TestLoadIsDeterministic(t *testing.T) {
	a, err := Load(t.TempDir(), 500, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(t.TempDir(), 500, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Passages) != 500 {
		t.Errorf("%d passages, want 500", len(a.Passages))
	}
	if len(a.Queries) == 0 || len(a.Queries) > MaxQueries {
		t.Errorf("%d queries", len(a.Queries))
	}
	if !reflect.DeepEqual(a.Passages, b.Passages) || !reflect.DeepEqual(a.Queries, b.Queries) || a.Bytes != b.Bytes {
		t.Error("two builds of the same corpus differ")
	}
}
