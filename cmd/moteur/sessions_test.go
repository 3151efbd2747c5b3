package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// twoProjects stores s-a1 and s-a2 (newest) in h.dir, and s-b in another
// project.
func twoProjects(t *testing.T) (h *harness, other string) {
	t.Helper()
	srv := openaitest.NewServer(t, openaitest.Answer("A1"), openaitest.Answer("A2"), openaitest.Answer("B"))
	h = newHarness(t, srv.BaseURL())
	for _, r := range [][]string{{"s-a1", "first in a"}, {"s-a2", "second in a"}} {
		if res := h.run(t, "run", "--new-session", r[0], r[1]); res.code != 0 {
			t.Fatalf("run: exit %d: %s", res.code, res.stderr)
		}
	}
	projectA := h.dir
	h.dir = t.TempDir()
	if res := h.run(t, "run", "--new-session", "s-b", "only in b"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	other, h.dir = h.dir, projectA
	return h, other
}

func TestSessionsListText(t *testing.T) {
	h, other := twoProjects(t)
	res := h.run(t, "sessions", "list")
	if res.code != 0 || res.stderr != "" {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	row := regexp.MustCompile(`^(s-\S+) +(\S+) +4  (.*)$`)
	if len(lines) != 3 || !regexp.MustCompile(`^ID +UPDATED +EVENTS  TITLE$`).MatchString(lines[0]) {
		t.Fatalf("want a header and two rows, got:\n%s", res.stdout)
	}
	var ids []string
	for _, l := range lines[1:] {
		m := row.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("row %q does not read ID UPDATED 4 TITLE", l)
		}
		ids = append(ids, m[1]+" "+m[3])
	}
	if want := []string{"s-a2 second in a", "s-a1 first in a"}; !slices.Equal(ids, want) {
		t.Errorf("rows %q, want %q (newest first, this project only)", ids, want)
	}

	res = h.run(t, "sessions", "list", "--all", "--limit", "2")
	if res.code != 0 || !strings.Contains(res.stdout, "s-b ") || !strings.Contains(res.stdout, other) ||
		strings.Contains(res.stdout, "s-a1") || !strings.Contains(res.stderr, "--limit 0") {
		t.Errorf("--all --limit 2: exit %d, stdout:\n%s\nstderr %q", res.code, res.stdout, res.stderr)
	}

	h.dir = t.TempDir()
	res = h.run(t, "sessions", "list")
	if res.code != 0 || res.stdout != "" || !strings.Contains(res.stderr, "no sessions") {
		t.Errorf("empty project: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

func TestSessionsListJSON(t *testing.T) {
	h, other := twoProjects(t)
	res := h.run(t, "sessions", "list", "--json", "--all")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, res.stdout)
	}
	if len(got) != 3 || got[0]["id"] != "s-b" || got[0]["project_root"] != other || got[0]["title"] != "only in b" ||
		got[0]["events"] != 4.0 || got[0]["last_seq"] != 4.0 {
		t.Fatalf("sessions %v", got)
	}
	for _, k := range []string{"id", "title", "project_root", "agent", "parent_id", "fork_seq", "created", "updated", "events", "last_seq"} {
		if _, ok := got[1][k]; !ok {
			t.Errorf("object lacks %q: %v", k, got[1])
		}
	}

	// Nothing stored at all: an empty array, and no database created.
	h = newHarness(t, "http://127.0.0.1:1/v1")
	res = h.run(t, "sessions", "list", "--json")
	if res.code != 0 || res.stdout != "[]\n" {
		t.Errorf("empty store: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(session.DefaultPath(h.home())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("listing created the database: %v", err)
	}
}

func TestSessionsShow(t *testing.T) {
	srv := openaitest.NewServer(t, toolThenAnswer("Bonjour <le> monde")...)
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-show", "dis", "bonjour"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	res := h.run(t, "sessions", "show", "s-show")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	want := regexp.MustCompile(`(?s)^session s-show · dis bonjour\n  project .*· 6 events · created .*\n\n` +
		`· started: model test-model \(127\.0\.0\.1:\d+\), tools agent, .*thinking, todo_write, write_file\n` +
		`› dis bonjour\n` +
		`→ thinking \{"thought":"Plan the answer",.*\n` +
		`✓ thinking \(\d+ ms\)\n  .*\n` +
		`Bonjour <le> monde\n` +
		`· turn ended: stop \(2 rounds, 2 requests\)\n$`)
	if !want.MatchString(res.stdout) {
		t.Errorf("show:\n%s\nwant match for %s", res.stdout, want)
	}

	res = h.run(t, "sessions", "show", "--json", "s-show")
	if got, want := res.stdout, jsonLines(t, h.load(t, "s-show")); res.code != 0 || got != want {
		t.Errorf("--json: exit %d\n%s\nwant the stored events:\n%s", res.code, got, want)
	}

	for _, args := range [][]string{{"sessions", "show", "s-nope"}, {"sessions", "show", "--json", "s-nope"}} {
		res = h.run(t, args...)
		if res.code != 1 || res.stderr != "moteur: session s-nope not found\n" || res.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, res.code, res.stdout, res.stderr)
		}
	}
}

func TestSessionsShowMarksSyntheticAndFailedResults(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	appendEvents(t, h.store(t), "s-marks",
		event.UserMessagePayload{Text: "line one\nline two"},
		event.AssistantMessagePayload{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
			{ID: "c2", Name: "shell_exec", Arguments: `{"cmd":"make"}`},
		}},
		event.ToolResultPayload{CallID: "c1", Name: "read_file", Content: "1\n2\n3\n4\n5", DurationMS: 7},
		event.ToolResultPayload{CallID: "c2", Name: "shell_exec", Content: "no result", IsError: true, Synthetic: true},
		event.TurnCompletedPayload{Reason: event.StopCancelled, Rounds: 1, Requests: 1},
	)
	res := h.run(t, "sessions", "show", "s-marks")
	want := "› line one\n  line two\n" +
		"→ read_file {\"path\":\"a\"}\n→ shell_exec {\"cmd\":\"make\"}\n" +
		"✓ read_file (7 ms)\n  1\n  2\n  3\n  … 2 more lines\n" +
		"✗ shell_exec [synthetic: moteur answered, the call never finished]\n  no result\n" +
		"· turn ended: cancelled (1 round, 1 request)\n"
	if res.code != 0 || !strings.HasSuffix(res.stdout, want) {
		t.Errorf("exit %d, show:\n%s\nwant it to end with:\n%s", res.code, res.stdout, want)
	}
}

// forkAfterTwoTurns runs two turns, "one" and "two", in session s-src and
// forks it as s-fork at seq 4, which ends the first.
func (h *harness) forkAfterTwoTurns(t *testing.T) {
	t.Helper()
	for i, p := range []string{"one", "two"} {
		if res := h.run(t, "run", sessionFlag(i), "s-src", p); res.code != 0 {
			t.Fatalf("run: exit %d: %s", res.code, res.stderr)
		}
	}
	res := h.run(t, "sessions", "fork", "s-src", "--at", "4", "--id", "s-fork")
	if res.code != 0 || res.stdout != "s-fork\n" {
		t.Fatalf("fork: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

func TestSessionsForkThenContinueTheFork(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"), openaitest.Answer("B"), openaitest.Answer("from the fork"))
	h := newHarness(t, srv.BaseURL())
	h.forkAfterTwoTurns(t)
	if res := h.run(t, "run", "--session", "s-fork", "three"); res.code != 0 || res.stderr != "session: s-fork\n" {
		t.Fatalf("run on the fork: exit %d, stderr %q", res.code, res.stderr)
	}
	var got []string
	for _, m := range srv.Requests()[2].Messages[1:] {
		got = append(got, m.Content)
	}
	if want := []string{"one", "A", "three"}; !slices.Equal(got, want) {
		t.Errorf("the fork's request %q, want %q", got, want)
	}
	evs := h.load(t, "s-fork")
	checkSeqs(t, evs)
	// Each run records a SessionStarted, a user message, an answer and
	// the turn's end: 4 kept from the source, then 4 of its own.
	if len(evs) != 8 || len(h.load(t, "s-src")) != 8 {
		t.Errorf("fork has %d events (want 8), source %d (want 8)", len(evs), len(h.load(t, "s-src")))
	}
	if res := h.run(t, "audit", "verify", h.auditFile("s-fork")); res.code != 0 {
		t.Errorf("audit verify of the fork: exit %d: %s%s", res.code, res.stdout, res.stderr)
	}

	// JSON, and a generated id.
	res := h.run(t, "sessions", "fork", "--json", "s-src", "--at", "2")
	var info map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &info); res.code != 0 || err != nil {
		t.Fatalf("fork --json: exit %d, %v, stdout %q", res.code, err, res.stdout)
	}
	if id, _ := info["id"].(string); !strings.HasPrefix(id, "s-") || info["parent_id"] != "s-src" ||
		info["fork_seq"] != 2.0 || info["events"] != 2.0 {
		t.Errorf("fork --json: %v", info)
	}
}

func TestSessionsForkErrors(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-src", "one"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sessions", "fork", "s-src", "--at", "99"}, 1, "ends at seq 4"},
		{[]string{"sessions", "fork", "s-nope", "--at", "1"}, 1, "session s-nope not found"},
		{[]string{"sessions", "fork", "s-src", "--at", "1", "--id", "s-src"}, 1, "session s-src already exists"},
		{[]string{"sessions", "fork", "s-src"}, 2, "needs --at"},
		{[]string{"sessions", "fork", "s-src", "--at", "0"}, 2, "--at 0"},
		{[]string{"sessions", "fork", "s-src", "--at", "1", "--id", "../x"}, 2, "invalid --id"},
	} {
		res := h.run(t, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) || res.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, res.code, res.stdout, res.stderr, tc.code, tc.want)
		}
	}
	if page, _ := h.store(t).List(t.Context(), session.ListOptions{}); len(page.Sessions) != 1 {
		t.Errorf("%d sessions stored after failed forks, want 1", len(page.Sessions))
	}
}

func TestSessionsRmKeepsTheAuditLog(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-rm", "one"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	audit := readFile(t, h.auditFile("s-rm"))

	res := h.run(t, "sessions", "rm", "s-rm")
	if res.code != 2 || !strings.Contains(res.stderr, "--yes") {
		t.Errorf("rm without --yes off a terminal: exit %d, stderr %q", res.code, res.stderr)
	}
	res = h.run(t, "sessions", "rm", "--yes", "s-rm")
	if res.code != 0 || res.stdout != "removed session s-rm (audit log kept: "+h.auditFile("s-rm")+")\n" {
		t.Fatalf("rm: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if _, err := h.store(t).Info(t.Context(), "s-rm"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("session still stored: %v", err)
	}
	if _, err := os.Stat(h.transcriptFile("s-rm")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("transcript left: %v", err)
	}
	if got := readFile(t, h.auditFile("s-rm")); got != audit {
		t.Error("the audit log changed")
	}
	res = h.run(t, "sessions", "rm", "--yes", "s-rm")
	if res.code != 1 || res.stderr != "moteur: session s-rm not found\n" {
		t.Errorf("rm again: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := h.run(t, "audit", "verify"); res.code != 0 {
		t.Errorf("audit verify after rm: exit %d: %s%s", res.code, res.stdout, res.stderr)
	}
}

func TestSessionTableCutsTitlesAndMarksForks(t *testing.T) {
	var out strings.Builder
	c := newCLI(envMap(nil), nil, &out, &out)
	c.lang = i18n.EN
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	err := c.writeSessionTable([]session.Info{
		{ID: "s-long", Updated: at, Events: 12, Title: strings.Repeat("é", 80)},
		{ID: "s-f", Updated: at, Events: 3, Title: "child", ParentID: "s-long", ForkSeq: 2},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	stamp := at.Local().Format(time.RFC3339)
	want := "ID      UPDATED" + strings.Repeat(" ", len(stamp)-len("UPDATED")) + "  EVENTS  TITLE\n" +
		"s-long  " + stamp + "      12  " + strings.Repeat("é", 59) + "…\n" +
		"s-f     " + stamp + "       3  [fork of s-long at 2] child\n"
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Second, "just now"}, {5 * time.Minute, "5 min ago"}, {3 * time.Hour, "3 h ago"},
		{50 * time.Hour, "2 days ago"},
	} {
		if got := agoIn(i18n.EN, now, now.Add(-tc.d)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := agoIn(i18n.EN, now, now.AddDate(0, -2, 0)); !strings.HasPrefix(got, "2026-01-0") {
		t.Errorf("two months ago: %q, want the date", got)
	}
}

func TestSessionsRmAsksOnATerminal(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-ask", "one"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	h.tty = true
	h.stdin = strings.NewReader("n\n")
	res := h.run(t, "sessions", "rm", "s-ask")
	if res.code != 1 || !strings.Contains(res.stderr, "Remove session s-ask (4 events, \"one\")? Its audit log "+h.auditFile("s-ask")+" is kept. [y/N] ") ||
		!strings.Contains(res.stderr, "moteur: session s-ask not removed\n") {
		t.Errorf("answer n: exit %d, stderr %q", res.code, res.stderr)
	}
	if _, err := h.store(t).Info(t.Context(), "s-ask"); err != nil {
		t.Fatalf("removed after answering n: %v", err)
	}
	h.stdin = strings.NewReader("y\n")
	if res := h.run(t, "sessions", "rm", "s-ask"); res.code != 0 {
		t.Errorf("answer y: exit %d, stderr %q", res.code, res.stderr)
	}
	if _, err := h.store(t).Info(t.Context(), "s-ask"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("not removed after answering y: %v", err)
	}
}

// pagedStore serves List in pages of 3, whatever the limit asked, as a
// store may.
type pagedStore struct {
	session.Store
	ids []string
}

func (p pagedStore) List(_ context.Context, o session.ListOptions) (session.Page, error) {
	start, _ := strconv.Atoi(o.Cursor)
	end := min(start+min(o.Limit, 3), len(p.ids))
	var page session.Page
	for _, id := range p.ids[start:end] {
		page.Sessions = append(page.Sessions, session.Info{ID: id})
	}
	if end < len(p.ids) {
		page.Next = strconv.Itoa(end)
	}
	return page, nil
}

func TestListSessionsFollowsPages(t *testing.T) {
	st := pagedStore{ids: []string{"a", "b", "c", "d", "e", "f", "g"}}
	for _, tc := range []struct {
		limit int
		n     int
		more  bool
	}{{0, 7, false}, {5, 5, true}, {6, 6, true}, {7, 7, false}, {9, 7, false}} {
		infos, more, err := listSessions(t.Context(), st, "", tc.limit)
		if err != nil || len(infos) != tc.n || more != tc.more {
			t.Errorf("limit %d: %d sessions, more %v, %v; want %d, %v", tc.limit, len(infos), more, err, tc.n, tc.more)
		}
		for i, info := range infos {
			if info.ID != st.ids[i] {
				t.Errorf("limit %d: session %d is %s: order lost", tc.limit, i, info.ID)
				break
			}
		}
	}
}
