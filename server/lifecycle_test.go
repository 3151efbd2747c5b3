package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

func TestShutdownLetsARunningTurnFinish(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{})
	ts := newTestServer(t, testOptions{}, blockUntil(release, arrived, "finished in time"))
	id := ts.newSession()
	stream := ts.chat(id, "a long one")
	<-arrived
	ts.stopAccepting() // as Shutdown does first
	drained := make(chan error, 1)
	go func() { drained <- ts.Shutdown(context.Background()) }()
	// Draining: no new turn starts, while the running one goes on.
	wantError(t, ts.do("POST", "/api/v1/agent-chat/"+ts.newSession(), ts.key, map[string]any{"query": "late"}),
		http.StatusServiceUnavailable, CodeShuttingDown)
	close(release)
	frames := stream.rest(t)
	if err := <-drained; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	last := strings.Join(frames[len(frames)-1].data, "")
	if frames[len(frames)-1].event != string(event.TurnCompleted) || !strings.Contains(last, "finished in time") {
		t.Fatalf("stream %s, last %s", frameTypes(frames), last)
	}
}

func TestShutdownDeadlineCancelsTheTurnAndLosesNothing(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{})
	defer close(release)
	ts := newTestServer(t, testOptions{}, blockUntil(release, arrived, "never"), openaitest.Answer("rescued"))
	id := ts.newSession()
	stream := ts.chat(id, "too long")
	<-arrived
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline is already past
	err := ts.Shutdown(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "1 turn(s) cancelled") {
		t.Fatalf("Shutdown: %v, want the cancelled turn counted", err)
	}
	frames := stream.rest(t)
	if frames[len(frames)-1].event != string(event.TurnCompleted) {
		t.Fatalf("stream %s", frameTypes(frames))
	}
	// Everything the stream showed is in the store, TurnCompleted last.
	st := openStore(t, ts.home)
	stored, err := st.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(stored); n == 0 || stored[n-1].Type != event.TurnCompleted ||
		stored[n-1].Payload.(event.TurnCompletedPayload).Reason != event.StopCancelled {
		t.Fatalf("stored %d events, last %+v", n, stored[len(stored)-1])
	}
	persisted := 0
	for _, f := range frames {
		if f.hasID {
			persisted++
		}
	}
	if persisted > len(stored) {
		t.Errorf("%d persisted frames, %d stored events", persisted, len(stored))
	}
}

func openStore(t *testing.T, home string) *session.SQLite {
	t.Helper()
	st, err := session.OpenSQLite(t.Context(), session.SQLiteConfig{Path: session.DefaultPath(home)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestFollowResumesAfterACutAndTwoClientsFollow(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("one"), openaitest.Answer("two"))
	id := ts.newSession()
	ts.chat(id, "first").rest(t)
	first := streamOf(t, ts.do("GET", "/api/v1/sessions/"+id+"/events", ts.key, nil))
	got := first.until(t, string(event.TurnCompleted))
	lastID := got[len(got)-1].id
	// The first follower's connection is cut; a second one follows live.
	second := streamOf(t, ts.do("GET", "/api/v1/sessions/"+id+"/events?after="+lastID, ts.key, nil))
	ts.chat(id, "second").rest(t)
	live := second.until(t, string(event.TurnCompleted))
	// The first reconnects with its Last-Event-ID and misses nothing.
	req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.http.URL+"/api/v1/sessions/"+id+"/events", nil)
	req.Header.Set("X-API-Key", ts.key)
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	resumed := streamOf(t, resp).until(t, string(event.TurnCompleted))
	if frameIDs(resumed) != frameIDs(live) || len(live) == 0 {
		t.Errorf("resumed %s, live %s", frameIDs(resumed), frameIDs(live))
	}
	if live[0].id != itoa(mustAtoi(t, lastID)+1) {
		t.Errorf("the follower started at %s, after %s", live[0].id, lastID)
	}
}

func frameIDs(fs []frame) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.id + " ")
	}
	return b.String()
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := parseSeq("id", s)
	if err != nil {
		t.Fatal(err)
	}
	return int64(n)
}

func TestKnowledgeChatIsTheQuickAnswer(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("from the documents"))
	// With no base at all the question cannot be searched: the stream
	// says so, and nothing is stored (no session begins).
	id := ts.newSession()
	frames := streamOf(t, ts.do("POST", "/api/v1/knowledge-chat/"+id, ts.key, map[string]any{"query": "what do the docs say?"})).rest(t)
	if len(frames) != 1 || frames[0].event != "error" || !strings.Contains(strings.Join(frames[0].data, ""), "no knowledge base yet") {
		t.Fatalf("knowledge-chat with no base: %s %+v, want one error frame naming the missing base", frameTypes(frames), frames)
	}
	wantError(t, ts.do("GET", "/api/v1/sessions/"+id, ts.key, nil), http.StatusNotFound, CodeUnknownSession)
	decodeJSON(t, ts.do("POST", "/api/v1/knowledge-bases", ts.key, map[string]any{"name": "docs"}), http.StatusCreated, &map[string]any{})

	frames = streamOf(t, ts.do("POST", "/api/v1/knowledge-chat/"+id, ts.key, map[string]any{"query": "what do the docs say?"})).rest(t)
	var started string
	for _, f := range frames {
		if f.event == string(event.SessionStarted) {
			started = strings.Join(f.data, "")
		}
	}
	if !strings.Contains(started, `"provider":"quick-answer"`) || frames[len(frames)-1].event != string(event.TurnCompleted) {
		t.Fatalf("knowledge-chat stream %s: SessionStarted %s", frameTypes(frames), started)
	}
	// A quick-answer agent on the agent route is downgraded likewise.
	id2 := ts.newSession()
	frames = streamOf(t, ts.do("POST", "/api/v1/agent-chat/"+id2, ts.key,
		map[string]any{"query": "and now?", "agent_id": "builtin-quick-answer"})).rest(t)
	if !strings.Contains(strings.Join(frames[0].data, ""), `"provider":"quick-answer"`) {
		t.Errorf("quick-answer agent on agent-chat: first frame %s %v", frames[0].event, frames[0].data)
	}
}

func TestScopesAndBadInput(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	writer := ts.newAgent("writer", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeSmartReasoning})
	limited := ts.newKey("limited", apikey.Scope{Agents: []string{writer.ID}, Bases: []string{"docs"}})
	id := ts.newSession()
	chat := "/api/v1/agent-chat/" + id
	// Out of the key's scope: another agent, no agent, another base.
	wantError(t, ts.do("POST", chat, limited, map[string]any{"query": "q", "agent_id": "builtin-smart-reasoning"}), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("POST", chat, limited, map[string]any{"query": "q"}), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("POST", chat, limited, map[string]any{"query": "q", "agent_id": writer.ID, "knowledge_base_ids": []string{"hr"}}),
		http.StatusForbidden, CodeForbidden)
	// Bad bodies.
	wantError(t, ts.do("POST", chat, ts.key, map[string]any{"query": "q", "agentid": "x"}), http.StatusBadRequest, CodeUnknownField)
	wantError(t, ts.do("POST", chat, ts.key, map[string]any{"query": "  "}), http.StatusBadRequest, CodeEmptyQuery)
	wantError(t, ts.do("POST", chat, ts.key, map[string]any{"query": "q", "agent_id": "nobody"}), http.StatusNotFound, CodeUnknownAgent)
	wantError(t, ts.do("POST", "/api/v1/agent-chat/x%21y", ts.key, map[string]any{"query": "q"}), http.StatusBadRequest, CodeInvalidSession)
	req, _ := http.NewRequestWithContext(t.Context(), "POST", ts.http.URL+chat, strings.NewReader(`{"query": "q",`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ts.key)
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantError(t, resp, http.StatusBadRequest, CodeMalformedJSON)
	huge := bytes.Repeat([]byte(" "), 100<<20)
	copy(huge, `{"query":"`)
	req, _ = http.NewRequestWithContext(t.Context(), "POST", ts.http.URL+chat, bytes.NewReader(huge))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ts.key)
	if resp, err = ts.http.Client().Do(req); err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantError(t, resp, http.StatusRequestEntityTooLarge, CodeBodyTooLarge)
	// Unknown sessions and routes.
	wantError(t, ts.do("GET", "/api/v1/sessions/s-nope", ts.key, nil), http.StatusNotFound, CodeUnknownSession)
	wantError(t, ts.do("GET", "/api/v1/sessions/s-nope/events", ts.key, nil), http.StatusNotFound, CodeUnknownSession)
	wantError(t, ts.do("DELETE", "/api/v1/sessions/s-nope", ts.key, nil), http.StatusNotFound, CodeUnknownSession)
	wantError(t, ts.do("GET", "/api/v1/nothing", ts.key, nil), http.StatusNotFound, "no_route")
	// Nothing was stored by the refused requests.
	if _, err := ts.store.Info(t.Context(), id); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("refused requests stored session %s: %v", id, err)
	}
}

func TestSessionInUseByAnotherProcess(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("first"))
	id := ts.newSession()
	ts.chat(id, "hello").rest(t)
	// The CLI holds the session (its lease, through another store).
	cli := openStore(t, ts.home)
	lease, err := cli.Acquire(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	msg := wantError(t, ts.do("POST", "/api/v1/agent-chat/"+id, ts.key, map[string]any{"query": "again"}), http.StatusConflict, CodeInUse)
	if !strings.Contains(msg, "in use") {
		t.Errorf("message %q", msg)
	}
	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	resp := ts.do("DELETE", "/api/v1/sessions/"+id, ts.key, nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE after release: %d", resp.StatusCode)
	}
	wantError(t, ts.do("GET", "/api/v1/sessions/"+id, ts.key, nil), http.StatusNotFound, CodeUnknownSession)
}
