package sessiontest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// sameInfo fails unless got and want are equal, times compared as instants.
func sameInfo(t *testing.T, got, want session.Info) {
	t.Helper()
	if !got.Created.Equal(want.Created) || !got.Updated.Equal(want.Updated) {
		t.Fatalf("info %s times: got created %v updated %v, want %v %v", want.ID, got.Created, got.Updated, want.Created, want.Updated)
	}
	got.Created, got.Updated = want.Created, want.Updated
	if got != want {
		t.Fatalf("info:\n got %+v\nwant %+v", got, want)
	}
}

func user(id string, seq uint64, text string, blocked bool) event.Event {
	return ev(id, seq, event.UserMessage, event.UserMessagePayload{Text: text, Blocked: blocked})
}

func started(id string, seq uint64, root string) event.Event {
	return ev(id, seq, event.SessionStarted, event.SessionStartedPayload{Provider: "p", Model: "m", ProjectRoot: root})
}

func testInfo(t *testing.T, h *harness) {
	s := h.main()
	appendOK(t, s, started("i", 1, "/src/p"), user("i", 2, "secret", true))
	if got := info(t, s, "i"); got.Title != "" {
		t.Fatalf("title %q from a blocked message", got.Title)
	}
	appendOK(t, s, user("i", 3, " \n\t Première ligne  \nla suite", false), started("i", 4, "/other"),
		user("i", 5, "autre chose", false))
	sameInfo(t, info(t, s, "i"), session.Info{ID: "i", Title: "Première ligne", ProjectRoot: "/src/p",
		Created: base.Add(1 * time.Second), Updated: base.Add(5 * time.Second), Events: 5, LastSeq: 5})

	// A blank message gives no title: the next one does.
	appendOK(t, s, user("blank", 1, " \n ", false), user("blank", 2, "enfin", false))
	if got := info(t, s, "blank").Title; got != "enfin" {
		t.Fatalf("title %q, want %q", got, "enfin")
	}
	// No user message, no title; no SessionStarted, no project.
	appendOK(t, s, notes("plain", 1, 2)...)
	sameInfo(t, info(t, s, "plain"), session.Info{ID: "plain", Created: base.Add(time.Second),
		Updated: base.Add(2 * time.Second), Events: 2, LastSeq: 2})
	// The agent is the first SessionStarted's that names one, kept across
	// appends.
	appendOK(t, s, started("ag", 1, "/p"))
	appendOK(t, s, ev("ag", 2, event.SessionStarted, event.SessionStartedPayload{Provider: "p", Model: "m", Agent: "ag-1"}))
	appendOK(t, s, ev("ag", 3, event.SessionStarted, event.SessionStartedPayload{Provider: "p", Model: "m", Agent: "ag-2"}))
	if got := info(t, s, "ag"); got.Agent != "ag-1" || got.ProjectRoot != "/p" {
		t.Fatalf("agent %q, project %q: want ag-1 (the first named) and /p", got.Agent, got.ProjectRoot)
	}
	// A payload given by pointer counts too.
	appendOK(t, s, ev("ptr", 1, event.UserMessage, &event.UserMessagePayload{Text: "par pointeur"}))
	if got := info(t, s, "ptr").Title; got != "par pointeur" {
		t.Fatalf("title %q from a pointer payload", got)
	}
	// Updated is the time of the last event appended.
	late := note("plain", 3, "x")
	late.Time = base.Add(time.Hour)
	appendOK(t, s, late)
	if got := info(t, s, "plain"); !got.Updated.Equal(late.Time) || !got.Created.Equal(base.Add(time.Second)) {
		t.Fatalf("after a late event: created %v updated %v", got.Created, got.Updated)
	}
}

func testTitleCut(t *testing.T, h *harness) {
	s := h.main()
	cases := map[string]string{
		"exact": strings.Repeat("é", 80),
		"long":  strings.Repeat("é", 200),
		"words": strings.Repeat("mot ", 40),
	}
	for id, text := range cases {
		appendOK(t, s, user(id, 1, text, false))
		got := info(t, s, id).Title
		if n := utf8.RuneCountInString(got); n > 80 {
			t.Errorf("%s: title of %d runes: %q", id, n, got)
		}
		if utf8.RuneCountInString(text) <= 80 {
			if got != text {
				t.Errorf("%s: title %q, want the whole text", id, got)
			}
			continue
		}
		body, cut := strings.CutSuffix(got, "…")
		if !cut || !strings.HasPrefix(text, body) || len(body) == 0 || strings.HasSuffix(body, " ") {
			t.Errorf("%s: title %q: want a trimmed prefix of the text and …", id, got)
		}
	}
}

// makeSessions creates n sessions "l00"… whose updated times take only a
// few values (ties are ordered by id), with the project roots of roots in
// turn.
func makeSessions(t *testing.T, s session.Store, n int, roots ...string) []session.Info {
	t.Helper()
	var out []session.Info
	for i := range n {
		id := fmt.Sprintf("l%02d", i)
		root := ""
		if len(roots) > 0 {
			root = roots[i%len(roots)]
		}
		last := uint64(i%5 + 1)
		evs := []event.Event{started(id, 1, root)}
		evs = append(evs, notes(id, 2, last)...)
		appendOK(t, s, evs...)
		out = append(out, info(t, s, id))
	}
	return out
}

// wantOrder sorts infos as List does: updated desc, then id desc.
func wantOrder(infos []session.Info) []string {
	infos = slices.Clone(infos)
	slices.SortFunc(infos, func(a, b session.Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	return ids
}

// listAll pages through List, checking every page.
func listAll(t *testing.T, s session.Store, opts session.ListOptions, byID map[string]session.Info) []string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("List never ends")
		}
		p, err := s.List(context.Background(), opts)
		must(t, err, "list")
		if len(p.Sessions) > opts.Limit && opts.Limit > 0 {
			t.Fatalf("page of %d sessions, limit %d", len(p.Sessions), opts.Limit)
		}
		for _, in := range p.Sessions {
			ids = append(ids, in.ID)
			if want, ok := byID[in.ID]; ok {
				sameInfo(t, in, want)
			}
		}
		if p.Next == "" {
			return ids
		}
		if len(p.Sessions) == 0 {
			t.Fatal("an empty page has a Next")
		}
		opts.Cursor = p.Next
	}
}

func index(infos []session.Info) map[string]session.Info {
	m := map[string]session.Info{}
	for _, in := range infos {
		m[in.ID] = in
	}
	return m
}

func testList(t *testing.T, h *harness) {
	s := h.main()
	infos := makeSessions(t, s, 23)
	want := wantOrder(infos)
	for _, limit := range []int{1, 4, 5, 22, 23, 24} {
		got := listAll(t, s, session.ListOptions{Limit: limit}, index(infos))
		if !slices.Equal(got, want) {
			t.Fatalf("limit %d: got %v\nwant %v", limit, got, want)
		}
	}
}

func testListProject(t *testing.T, h *harness) {
	s := h.main()
	infos := makeSessions(t, s, 20, "/a", "/b", "")
	for _, root := range []string{"/a", "/b"} {
		var mine []session.Info
		for _, in := range infos {
			if in.ProjectRoot == root {
				mine = append(mine, in)
			}
		}
		got := listAll(t, s, session.ListOptions{Limit: 2, ProjectRoot: root}, index(infos))
		if want := wantOrder(mine); !slices.Equal(got, want) {
			t.Fatalf("project %s: got %v\nwant %v", root, got, want)
		}
	}
	if got := listAll(t, s, session.ListOptions{Limit: 3}, nil); len(got) != 20 {
		t.Fatalf("no filter: %d sessions, want 20", len(got))
	}
	p, err := s.List(context.Background(), session.ListOptions{ProjectRoot: "/none"})
	must(t, err, "list /none")
	if len(p.Sessions) != 0 || p.Next != "" {
		t.Fatalf("unknown project: %+v", p)
	}
}

func testListDefaults(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	p, err := s.List(ctx, session.ListOptions{})
	must(t, err, "list an empty store")
	if len(p.Sessions) != 0 || p.Next != "" {
		t.Fatalf("empty store: %+v", p)
	}
	makeSessions(t, s, 60)
	p, err = s.List(ctx, session.ListOptions{})
	must(t, err, "list")
	if len(p.Sessions) != 50 || p.Next == "" {
		t.Fatalf("limit 0: %d sessions, next %q; want 50 and a next page", len(p.Sessions), p.Next)
	}
	p, err = s.List(ctx, session.ListOptions{Limit: 5000})
	must(t, err, "list with a huge limit")
	if len(p.Sessions) != 60 || p.Next != "" {
		t.Fatalf("limit 5000: %d sessions, next %q", len(p.Sessions), p.Next)
	}
	if _, err := s.List(ctx, session.ListOptions{Limit: -1}); err == nil {
		t.Fatal("a negative limit was accepted")
	}
	for _, c := range []string{"garbage!", "Zm9v", "%%%"} {
		if _, err := s.List(ctx, session.ListOptions{Cursor: c}); err == nil {
			t.Fatalf("cursor %q was accepted", c)
		}
	}
}
