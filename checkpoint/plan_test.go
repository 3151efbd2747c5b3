package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scenario is the session of the brief: c.txt exists before; point 1:
// create a.txt, a shell command; point 2: edit a.txt, create b.txt, delete
// c.txt.
type scenario struct {
	*sim
	p1, p2, shellSeq uint64
}

// Binary content, so that "exact bytes" means something.
const (
	cOld = "c d'avant\r\n\x00\xfe"
	a1   = "a version 1\n"
	a2   = "a version 2\n"
	b1   = "b\n"
)

func newScenario(t testing.TB) scenario {
	s := newSim(t, t.TempDir(), openStore(t))
	s.put("c.txt", cOld)
	sc := scenario{sim: s}
	sc.p1 = s.user("crée a")
	s.write("w1", "a.txt", a1)
	sc.shellSeq = s.shell("sh1")
	sc.p2 = s.user("modifie tout")
	s.write("w2", "a.txt", a2)
	s.write("w3", "dir/b.txt", b1)
	s.remove("d1", "c.txt")
	return sc
}

func TestPlanToFirstPoint(t *testing.T) {
	sc := newScenario(t)
	got := sc.plan(sc.p1)
	want := Plan{
		ToSeq: sc.p1,
		Files: []FilePlan{
			{Path: "a.txt", Status: StatusOK, Restore: "", Left: HashOf([]byte(a2)), Current: HashOf([]byte(a2))},
			{Path: "c.txt", Status: StatusOK, Restore: HashOf([]byte(cOld)), Left: "", Current: ""},
			{Path: "dir/b.txt", Status: StatusOK, Restore: "", Left: HashOf([]byte(b1)), Current: HashOf([]byte(b1))},
		},
		NotUndoable: []Call{{Seq: sc.shellSeq, CallID: "sh1", Tool: "shell"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Plan(%d) =\n%+v\nwant\n%+v", sc.p1, got, want)
	}
}

func TestPlanToSecondPoint(t *testing.T) {
	sc := newScenario(t)
	got := sc.plan(sc.p2)
	if len(got.NotUndoable) != 0 {
		t.Errorf("NotUndoable %+v: the shell call came before the point", got.NotUndoable)
	}
	if len(got.Files) != 3 || got.Files[0].Path != "a.txt" || got.Files[0].Restore != HashOf([]byte(a1)) {
		t.Fatalf("Plan(%d) = %+v; want a.txt restored to version 1", sc.p2, got)
	}
}

func TestPlanNotAPoint(t *testing.T) {
	sc := newScenario(t)
	for _, seq := range []uint64{0, sc.shellSeq, 999} {
		_, err := sc.live.Plan(sc.root, seq)
		if !errors.Is(err, ErrNotAPoint) || !strings.Contains(err.Error(), fmt.Sprint(seq)) {
			t.Errorf("Plan(%d) = %v; want ErrNotAPoint naming the seq", seq, err)
		}
	}
}

func TestPlanChangesNothing(t *testing.T) {
	sc := newScenario(t)
	before := snapshot(t, sc.root)
	sc.plan(sc.p1)
	if after := snapshot(t, sc.root); !reflect.DeepEqual(before, after) {
		t.Fatalf("Plan changed the files: %v → %v", before, after)
	}
}

// Another session wrote the same file after this one: the disk no longer
// holds what this session left, so its rewind must not take it back.
func TestOtherSessionWriteIsAConflict(t *testing.T) {
	s := newSim(t, t.TempDir(), openStore(t))
	o := s.other("s-other")
	p := s.user("écris")
	s.write("w1", "shared.txt", "mine\n")
	o.user("écris aussi")
	o.write("w9", "shared.txt", "theirs\n")

	plan := s.plan(p)
	if len(plan.Files) != 1 {
		t.Fatalf("plan %+v", plan)
	}
	f := plan.Files[0]
	if f.Status != StatusConflict || f.Left != HashOf([]byte("mine\n")) || f.Current != HashOf([]byte("theirs\n")) {
		t.Fatalf("shared.txt: %+v; want a conflict (left mine, current theirs)", f)
	}
	if res := s.rewind(plan, "code"); res[0].Status != RewoundSkipped {
		t.Fatalf("rewind: %+v; want skipped", res)
	}
	s.wantFile("shared.txt", "theirs\n")
}

func TestPlanPathsLeavingTheRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "x"), []byte("dehors"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	s := newSim(t, root, openStore(t))
	p := s.user("go")
	// Changes as a broken tool might record them.
	s.emit("ToolResult", "", toolResult("bad", "../outside/x", "link/x", "/etc/hostname"))

	plan := s.plan(p)
	if len(plan.Files) != 3 {
		t.Fatalf("plan %+v; want the three paths shown", plan)
	}
	for _, f := range plan.Files {
		if f.Status != StatusConflict || f.Error == "" || f.Current != "" {
			t.Errorf("%s: %+v; want a conflict that was not read", f.Path, f)
		}
	}
	res := s.rewind(plan, "code", "../outside/x", "link/x", "/etc/hostname")
	for _, r := range res {
		if r.Status != RewoundFailed {
			t.Errorf("%s: %+v; want failed", r.Path, r)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "x")); string(b) != "dehors" {
		t.Fatalf("file outside the root changed: %q", b)
	}
}

func TestRebuiltStateGivesTheSamePlan(t *testing.T) {
	sc := newScenario(t)
	// Some history of rewinds too.
	sc.rewind(sc.plan(sc.p2), "code")
	sc.put("a.txt", "edited by hand\n")
	p3 := sc.user("encore")
	sc.write("w4", "e.txt", "e\n")

	rebuilt := sc.rebuilt()
	if !reflect.DeepEqual(rebuilt.Points(), sc.live.Points()) {
		t.Fatalf("points differ:\n%+v\n%+v", rebuilt.Points(), sc.live.Points())
	}
	for _, seq := range []uint64{sc.p1, sc.p2, p3} {
		live := sc.plan(seq)
		got, err := rebuilt.Plan(sc.root, seq)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, live) {
			t.Fatalf("Plan(%d) after a rebuild:\n%+v\nlive:\n%+v", seq, got, live)
		}
	}
}

// snapshot maps every file under root to its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
