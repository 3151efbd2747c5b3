package engine

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/moteur/moteur/effect"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// fileTools are minimal file tools that keep what they replace in the
// checkpoint store, as tools/files does.
func fileTools(root string, store *checkpoint.Store) []tools.Tool {
	change := func(ctx context.Context, rel string, write func(path string) error) (tools.Result, error) {
		path := filepath.Join(root, rel)
		c := effect.Change{Path: rel}
		if old, err := os.ReadFile(path); err == nil {
			if c.Before, err = store.Put(ctx, old); err != nil {
				return tools.Result{}, err
			}
		}
		if err := write(path); err != nil {
			return tools.Result{}, err
		}
		if now, err := os.ReadFile(path); err == nil {
			c.After = checkpoint.HashOf(now)
		}
		return tools.Result{Content: "ok", Changes: []effect.Change{c}}, nil
	}
	type args struct{ Q, Text string }
	parse := func(raw json.RawMessage) args { var a args; _ = json.Unmarshal(raw, &a); return a }
	return []tools.Tool{
		&fakeTool{name: "put", risk: effect.RiskWrite, run: func(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
			a := parse(raw)
			return change(ctx, a.Q, func(p string) error { return os.WriteFile(p, []byte(a.Text), 0o644) })
		}},
		&fakeTool{name: "del", risk: effect.RiskDestructive, run: func(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
			return change(ctx, parse(raw).Q, os.Remove)
		}},
		&fakeTool{name: "sh", risk: effect.RiskWrite, run: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: "ran", NotUndoable: true}, nil
		}},
	}
}

func put(id, rel, text string) scripted.Step {
	return scripted.Call(id, "put", `{"q":"`+rel+`","text":"`+text+`"}`)
}

type rewindFixture struct {
	*harness
	root   string
	store  *checkpoint.Store
	p1, p2 uint64
}

// newRewindFixture runs two turns: the first writes a.txt; the second
// rewrites a.txt, creates b.txt, deletes c.txt (which existed before the
// session) and runs a shell command.
func newRewindFixture(t *testing.T) *rewindFixture {
	root := t.TempDir()
	store, err := checkpoint.Open(checkpoint.Config{Dir: t.TempDir(), Clear: true}) // sealing is tested in package checkpoint
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "c.txt"), []byte("ancien c"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []scripted.Step{
		put("w1", "a.txt", "a v1"), {Text: "tour 1"},
		put("w2", "a.txt", "a v2"), put("w3", "b.txt", "b"), scripted.Call("d1", "del", `{"q":"c.txt"}`),
		scripted.Call("s1", "sh", `{}`), {Text: "tour 2"},
		{Text: "après"},
	}
	h := newHarness(t, steps, fileTools(root, store), func(d *Deps) {
		d.ProjectRoot, d.Checkpoints = root, store
	})
	f := &rewindFixture{harness: h, root: root, store: store}
	for _, q := range []string{"premier", "second"} {
		if err := h.submit(q); err != nil {
			t.Fatal(err)
		}
	}
	pts := h.e.RewindPoints("s1")
	if len(pts) != 2 || pts[0].Prompt != "second" {
		t.Fatalf("points = %+v", pts)
	}
	f.p2, f.p1 = pts[0].Seq, pts[1].Seq
	return f
}

func (f *rewindFixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRewindPlanListsWritesAndWhatCannotBeUndone(t *testing.T) {
	f := newRewindFixture(t)
	plan, err := f.e.RewindPlan("s1", f.p2)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]checkpoint.FilePlan{}
	for _, fp := range plan.Files {
		got[fp.Path] = fp
	}
	if len(got) != 3 || got["a.txt"].Status != checkpoint.StatusOK || got["b.txt"].Restore != "" || got["c.txt"].Restore == "" {
		t.Errorf("plan files = %+v", plan.Files)
	}
	if len(plan.NotUndoable) != 1 || plan.NotUndoable[0].CallID != "s1" {
		t.Errorf("not undoable = %+v", plan.NotUndoable)
	}
	if _, err := f.e.RewindPlan("s1", f.p2+1); !errors.Is(err, checkpoint.ErrNotAPoint) {
		t.Errorf("plan to a seq that is not a point: %v", err)
	}
	if f.read(t, "a.txt") != "a v2" {
		t.Error("RewindPlan changed a file")
	}
}

func TestRewindBothRestoresFilesAndConversation(t *testing.T) {
	f := newRewindFixture(t)
	plan, _ := f.e.RewindPlan("s1", f.p2)
	res, err := f.e.Rewind(context.Background(), "s1", f.p2, RewindBoth, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"a.txt": "a v1", "b.txt": "<absent>", "c.txt": "ancien c"} {
		if got := f.read(t, rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	if res.Prompt != "second" || len(res.Files) != 3 {
		t.Errorf("result = %+v", res)
	}
	evs := f.sink.all()
	if last := evs[len(evs)-1]; last.Type != event.Rewound {
		t.Errorf("the last event is %s, want Rewound", last.Type)
	}
	if err := f.submit("autre chose"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	msgs := contents(reqs[len(reqs)-1].Messages)
	if strings.Contains(strings.Join(msgs, "|"), "second") || msgs[len(msgs)-1] != "user:autre chose" {
		t.Errorf("history after the rewind = %q", msgs)
	}
}

func TestRewindCodeKeepsTheConversationAndLeavesANote(t *testing.T) {
	f := newRewindFixture(t)
	plan, _ := f.e.RewindPlan("s1", f.p1)
	res, err := f.e.Rewind(context.Background(), "s1", f.p1, RewindCode, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.read(t, "a.txt") != "<absent>" || f.read(t, "c.txt") != "ancien c" || res.Note == "" {
		t.Errorf("a.txt %q, c.txt %q, note %q", f.read(t, "a.txt"), f.read(t, "c.txt"), res.Note)
	}
	if err := f.submit("et maintenant ?"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if got := msgs[len(msgs)-1].Content; !strings.HasPrefix(got, res.Note) || !strings.Contains(strings.Join(contents(msgs), "|"), "second") {
		t.Errorf("the note must precede the next message and the conversation stay: %q", got)
	}
}

func TestRewindConversationTouchesNoFile(t *testing.T) {
	f := newRewindFixture(t)
	res, err := f.e.Rewind(context.Background(), "s1", f.p2, RewindConversation, checkpoint.Plan{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 || f.read(t, "a.txt") != "a v2" || res.Prompt != "second" {
		t.Errorf("result %+v, a.txt %q", res, f.read(t, "a.txt"))
	}
}

func TestRewindLeavesAConflictThenOverwritesItWhenListed(t *testing.T) {
	f := newRewindFixture(t)
	if err := os.WriteFile(filepath.Join(f.root, "b.txt"), []byte("modifié à la main"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, _ := f.e.RewindPlan("s1", f.p2)
	res, err := f.e.Rewind(context.Background(), "s1", f.p2, RewindCode, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.read(t, "b.txt") != "modifié à la main" || f.read(t, "a.txt") != "a v1" {
		t.Errorf("the conflict must be left alone and the rest restored: b %q a %q (%+v)", f.read(t, "b.txt"), f.read(t, "a.txt"), res.Files)
	}
	plan, _ = f.e.RewindPlan("s1", f.p2)
	if _, err := f.e.Rewind(context.Background(), "s1", f.p2, RewindCode, plan, []string{"b.txt"}); err != nil {
		t.Fatal(err)
	}
	if f.read(t, "b.txt") != "<absent>" {
		t.Errorf("listed in overwrite, the conflict must be rewound: b.txt %q", f.read(t, "b.txt"))
	}
}

func TestRewindAfterRestoreInANewProcess(t *testing.T) {
	f := newRewindFixture(t)
	e, err := New(Deps{Provider: scripted.New(scripted.Config{}), ProjectRoot: f.root, Checkpoints: f.store,
		Sinks: []event.Sink{&memSink{}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Restore("s1", f.sink.all()); err != nil {
		t.Fatal(err)
	}
	if pts := e.RewindPoints("s1"); len(pts) != 2 || pts[0].Seq != f.p2 {
		t.Fatalf("restored points = %+v", pts)
	}
	plan, err := e.RewindPlan("s1", f.p2)
	if err != nil || len(plan.Files) != 3 || len(plan.NotUndoable) != 1 {
		t.Fatalf("restored plan = %+v, %v", plan, err)
	}
	if _, err := e.Rewind(context.Background(), "s1", f.p2, RewindBoth, plan, nil); err != nil {
		t.Fatal(err)
	}
	if f.read(t, "a.txt") != "a v1" || f.read(t, "c.txt") != "ancien c" {
		t.Error("a rewind after Restore did not restore the files")
	}
}

func TestRewindRefusesDuringATurnAndUnknownSessions(t *testing.T) {
	hold, reached := make(chan struct{}), make(chan struct{})
	h := newHarness(t, []scripted.Step{{Text: "a", Await: hold, Reached: reached}}, nil, nil)
	done := make(chan error, 1)
	go func() { done <- h.submit("q") }()
	<-reached
	if _, err := h.e.RewindPlan("s1", 2); !errors.Is(err, ErrTurnInProgress) {
		t.Errorf("RewindPlan during a turn = %v", err)
	}
	if _, err := h.e.Rewind(context.Background(), "s1", 2, RewindBoth, checkpoint.Plan{}, nil); !errors.Is(err, ErrTurnInProgress) {
		t.Errorf("Rewind during a turn = %v", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.RewindPlan("nope", 1); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("unknown session: %v", err)
	}
	if h.e.RewindPoints("nope") != nil {
		t.Error("points of an unknown session")
	}
	if _, err := h.e.Rewind(context.Background(), "s1", 2, "sideways", checkpoint.Plan{}, nil); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
