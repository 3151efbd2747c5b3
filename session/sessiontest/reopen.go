package sessiontest

import (
	"context"
	"testing"

	"github.com/moteur/moteur/session"
)

func testReopen(t *testing.T, h *harness) {
	ctx := context.Background()
	s := h.main()
	want := samples(t, "r")
	appendOK(t, s, want...)
	_, err := s.Fork(ctx, "r", 3, "r2")
	must(t, err, "fork")
	infos := []session.Info{info(t, s, "r"), info(t, s, "r2")}
	must(t, s.Close(), "close")

	s = h.main()
	sameJSON(t, load(t, s, "r"), want)
	for _, in := range infos {
		sameInfo(t, info(t, s, in.ID), in)
	}
	p, err := s.List(ctx, session.ListOptions{})
	must(t, err, "list")
	if len(p.Sessions) != 2 {
		t.Fatalf("after reopening, %d sessions listed, want 2", len(p.Sessions))
	}
	appendOK(t, s, note("r", uint64(len(want)+1), "after reopening"))
}
