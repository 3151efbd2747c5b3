package files_test

import (
	"errors"
	"github.com/moteur/moteur/effect"
	"strings"
	"testing"

	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

func TestRegister(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	cfg := files.Config{Root: t.TempDir()}
	if err := files.Register(r, cfg); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "edit_file,glob,grep,list_files,read_file,write_file" {
		t.Fatalf("Names = %s", got)
	}
	want := map[string]effect.Risk{
		"read_file": effect.RiskRead, "list_files": effect.RiskRead, "glob": effect.RiskRead, "grep": effect.RiskRead,
		"write_file": effect.RiskWrite, "edit_file": effect.RiskWrite,
	}
	for _, n := range r.Names() {
		tool, _ := r.Lookup(n)
		if tool.Risk() != want[n] {
			t.Errorf("%s: risk %s, want %s", n, tool.Risk(), want[n])
		}
		// Reads share nothing; writes serialise per path themselves.
		if !tool.Concurrent() {
			t.Errorf("%s: not concurrent", n)
		}
		if len(tool.Description()) < 300 {
			t.Errorf("%s: description too thin for the model", n)
		}
	}
	if err := files.Register(r, cfg); !errors.Is(err, tools.ErrDuplicateTool) {
		t.Errorf("second Register = %v, want ErrDuplicateTool", err)
	}
	if err := files.Register(tools.NewRegistry(tools.Config{}), files.Config{}); err == nil {
		t.Error("Register without a root succeeded")
	}
}

// Required arguments are enforced before Execute.
func TestSchemasRequire(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{}`},
		{"write_file", `{"path":"a"}`},
		{"edit_file", `{"path":"a"}`},
		{"edit_file", `{"path":"a","edits":[{"old_string":"x"}]}`},
		{"glob", `{}`},
		{"grep", `{"path":"."}`},
	} {
		e.fail(c.tool, c.args, "invalid arguments")
	}
	if e.exists("a") {
		t.Error("a refused call created a file")
	}
}
