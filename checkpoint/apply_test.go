package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/moteur/moteur/event"
)

func statuses(res []event.RewoundFile) map[string]string {
	out := map[string]string{}
	for _, r := range res {
		out[r.Path] = r.Status
		if r.Error != "" {
			out[r.Path] += ": " + r.Error
		}
	}
	return out
}

func wantStatuses(t *testing.T, res []event.RewoundFile, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, r := range res {
		got[r.Path] = r.Status
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outcomes %v\nwant %v", statuses(res), want)
	}
}

func TestApplyRestoresExactBytes(t *testing.T) {
	sc := newScenario(t)
	res := sc.rewind(sc.plan(sc.p1), "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok", "c.txt": "ok", "dir/b.txt": "ok"})
	sc.wantAbsent("a.txt")
	sc.wantAbsent("dir/b.txt")
	sc.wantFile("c.txt", cOld)
	// No temporary file is left behind.
	for p := range snapshot(t, sc.root) {
		if filepath.Base(p) != "c.txt" {
			t.Errorf("left over: %s", p)
		}
	}
}

func TestApplyConflictSkippedThenOverwritten(t *testing.T) {
	sc := newScenario(t)
	sc.put("a.txt", "edited by hand\n")
	plan := sc.plan(sc.p1)
	res := sc.rewind(plan, "code")
	wantStatuses(t, res, map[string]string{"a.txt": "skipped", "c.txt": "ok", "dir/b.txt": "ok"})
	sc.wantFile("a.txt", "edited by hand\n")

	// The user looks again and chooses to overwrite.
	plan = sc.plan(sc.p1)
	if len(plan.Files) != 1 || plan.Files[0].Status != StatusConflict {
		t.Fatalf("second plan %+v; want only the conflict on a.txt", plan)
	}
	res = sc.rewind(plan, "code", "a.txt")
	wantStatuses(t, res, map[string]string{"a.txt": "overwritten"})
	sc.wantAbsent("a.txt")
	// What was overwritten was saved first.
	if b, err := sc.store.Get(context.Background(), HashOf([]byte("edited by hand\n"))); err != nil || string(b) != "edited by hand\n" {
		t.Fatalf("the overwritten content was not saved: %q, %v", b, err)
	}
	if p := sc.plan(sc.p1); len(p.Files) != 0 {
		t.Fatalf("after the rewind, plan %+v; want empty", p)
	}
}

func TestApplyRefusesAFileChangedAfterThePlan(t *testing.T) {
	sc := newScenario(t)
	plan := sc.plan(sc.p1)
	sc.put("dir/b.txt", "changed while the user read the plan\n")
	res := sc.rewind(plan, "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok", "c.txt": "ok", "dir/b.txt": "failed"})
	sc.wantFile("dir/b.txt", "changed while the user read the plan\n")
	sc.wantAbsent("a.txt")

	// Created after the plan where the plan saw nothing: refused too.
	sc2 := newScenario(t)
	plan = sc2.plan(sc2.p1)
	sc2.put("c.txt", "recreated by someone\n")
	res = sc2.rewind(plan, "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok", "c.txt": "failed", "dir/b.txt": "ok"})
	sc2.wantFile("c.txt", "recreated by someone\n")
}

func TestApplyPreviewMismatch(t *testing.T) {
	sc := newScenario(t)
	plan := sc.plan(sc.p1)

	missing := plan
	missing.Files = plan.Files[1:] // a.txt was not shown
	res := Apply(context.Background(), sc.root, sc.store, plan, missing, nil)
	wantStatuses(t, res, map[string]string{"a.txt": "failed", "c.txt": "ok", "dir/b.txt": "ok"})
	if res[0].Error != "changed since the plan was shown" {
		t.Fatalf("a.txt: %+v", res[0])
	}
	sc.wantFile("a.txt", a2)

	sc2 := newScenario(t)
	plan = sc2.plan(sc2.p1)
	shown := plan
	shown.Files = append([]FilePlan(nil), plan.Files...)
	shown.Files[1].Restore = HashOf([]byte("something else")) // c.txt
	shown.Files[2].Status = StatusConflict                    // dir/b.txt
	res = Apply(context.Background(), sc2.root, sc2.store, plan, shown, nil)
	wantStatuses(t, res, map[string]string{"a.txt": "ok", "c.txt": "failed", "dir/b.txt": "failed"})
	sc2.wantAbsent("c.txt")
	sc2.wantFile("dir/b.txt", b1)

	// A preview of another point: nothing is done.
	other := plan
	other.ToSeq = sc2.p2
	sc3 := newScenario(t)
	plan = sc3.plan(sc3.p1)
	other.Files = plan.Files
	res = Apply(context.Background(), sc3.root, sc3.store, plan, other, nil)
	wantStatuses(t, res, map[string]string{"a.txt": "failed", "c.txt": "failed", "dir/b.txt": "failed"})
	sc3.wantFile("a.txt", a2)
}

func TestApplyFailureDoesNotStopTheOthers(t *testing.T) {
	sc := newScenario(t)
	plan := sc.plan(sc.p1)
	// A store that lacks c.txt's old content.
	empty := openStore(t)
	res := Apply(context.Background(), sc.root, empty, plan, plan, nil)
	wantStatuses(t, res, map[string]string{"a.txt": "ok", "c.txt": "failed", "dir/b.txt": "ok"})
	sc.wantAbsent("a.txt")
	sc.wantAbsent("dir/b.txt")
	sc.wantAbsent("c.txt")
}

func TestApplyKeepsModeAndCreatesParents(t *testing.T) {
	s := newSim(t, t.TempDir(), openStore(t))
	s.put("keep/mode.txt", "v0\n")
	if err := os.Chmod(filepath.Join(s.root, "keep", "mode.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	s.put("gone/deep/y.txt", "y0\n")
	p := s.user("go")
	s.write("w1", "keep/mode.txt", "v1\n")
	s.remove("d1", "gone/deep/y.txt")
	if err := os.RemoveAll(filepath.Join(s.root, "gone")); err != nil {
		t.Fatal(err)
	}
	res := s.rewind(s.plan(p), "code")
	wantStatuses(t, res, map[string]string{"keep/mode.txt": "ok", "gone/deep/y.txt": "ok"})
	s.wantFile("keep/mode.txt", "v0\n")
	s.wantFile("gone/deep/y.txt", "y0\n")
	fi, err := os.Stat(filepath.Join(s.root, "keep", "mode.txt"))
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode after restore: %v, %v; want 0640", fi, err)
	}
}

func TestRewoundMakesThePlanEmpty(t *testing.T) {
	for _, mode := range []string{"code", "both"} {
		t.Run(mode, func(t *testing.T) {
			sc := newScenario(t)
			sc.rewind(sc.plan(sc.p1), mode)
			if p := sc.plan(sc.p1); len(p.Files) != 0 {
				t.Fatalf("plan after the rewind %+v; want no file", p)
			}
			// The files restored are now as this session left them: a
			// plan to the later point sees them ok, not in conflict.
			if mode == "code" {
				for _, f := range sc.plan(sc.p2).Files {
					if f.Status != StatusOK {
						t.Errorf("plan to %d after the rewind: %+v; want ok", sc.p2, f)
					}
				}
			}
			p, err := sc.rebuilt().Plan(sc.root, sc.p1)
			if err != nil || len(p.Files) != 0 {
				t.Fatalf("plan of the rebuilt state %+v, %v; want no file", p, err)
			}
		})
	}
}

// The state is rewound without the files (conversation mode): nothing was
// restored, so the plan still has everything to do.
func TestConversationRewindRestoresNothing(t *testing.T) {
	sc := newScenario(t)
	want := sc.plan(sc.p1)
	sc.emit(event.Rewound, "", event.RewoundPayload{ToSeq: sc.p1, Mode: "conversation"})
	if got := sc.plan(sc.p1); !reflect.DeepEqual(got, want) {
		t.Fatalf("plan after a conversation rewind:\n%+v\nwant\n%+v", got, want)
	}
}

func TestLaterRewindToAnEarlierPoint(t *testing.T) {
	sc := newScenario(t)
	res := sc.rewind(sc.plan(sc.p2), "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok", "c.txt": "ok", "dir/b.txt": "ok"})
	sc.wantFile("a.txt", a1)
	sc.wantFile("c.txt", cOld)
	sc.wantAbsent("dir/b.txt")

	plan := sc.plan(sc.p1)
	want := []FilePlan{{Path: "a.txt", Status: StatusOK, Left: HashOf([]byte(a1)), Current: HashOf([]byte(a1))}}
	if !reflect.DeepEqual(plan.Files, want) {
		t.Fatalf("plan to the earlier point %+v\nwant %+v", plan.Files, want)
	}
	res = sc.rewind(plan, "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok"})
	sc.wantAbsent("a.txt")
	sc.wantFile("c.txt", cOld)
}

// A code rewind keeps the points after it; rewinding to one of them undoes
// the rewind, from the content Apply saved before replacing it.
func TestRewindToAPointAfterAnEarlierRewind(t *testing.T) {
	s := newSim(t, t.TempDir(), openStore(t))
	p1 := s.user("un")
	s.write("w1", "a.txt", "1\n")
	p2 := s.user("deux")
	s.write("w2", "a.txt", "2\n")
	p3 := s.user("trois") // nothing written since

	s.rewind(s.plan(p2), "code")
	s.wantFile("a.txt", "1\n")

	res := s.rewind(s.plan(p3), "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok"})
	s.wantFile("a.txt", "2\n")

	res = s.rewind(s.plan(p1), "code")
	wantStatuses(t, res, map[string]string{"a.txt": "ok"})
	s.wantAbsent("a.txt")

	// And the whole history replays to the same state.
	for _, seq := range []uint64{p1, p2, p3} {
		got, err := s.rebuilt().Plan(s.root, seq)
		if err != nil || !reflect.DeepEqual(got, s.plan(seq)) {
			t.Fatalf("Plan(%d) after a rebuild: %+v, %v; live %+v", seq, got, err, s.plan(seq))
		}
	}
}
