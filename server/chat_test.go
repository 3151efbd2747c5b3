package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// blockUntil is a model reply that waits for release (or for the request
// to be cancelled), then answers text: a turn that runs until the test
// says.
func blockUntil(release <-chan struct{}, arrived chan<- struct{}, text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if arrived != nil {
			close(arrived)
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		openaitest.Answer(text)(w, r)
	}
}

// newSession asks the server for a new session's id.
func (ts *testServer) newSession() string {
	ts.t.Helper()
	var out struct{ ID string }
	decodeJSON(ts.t, ts.do("POST", "/api/v1/sessions", ts.key, map[string]string{}), http.StatusCreated, &out)
	if out.ID == "" {
		ts.t.Fatal("POST /api/v1/sessions gave no id")
	}
	return out.ID
}

// chat posts a question on the agent route and returns its stream.
func (ts *testServer) chat(id, query string) *sseReader {
	ts.t.Helper()
	return streamOf(ts.t, ts.do("POST", "/api/v1/agent-chat/"+id, ts.key, map[string]any{"query": query}))
}

func TestAgentChatStreamsTheTurnAsRunJSON(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Stream(openaitest.Text("Hello "), openaitest.Text("world"),
		openaitest.Chunk(`{}`, "stop"), openaitest.Done))
	id := ts.newSession()
	frames := ts.chat(id, "say hello").rest(t)
	if len(frames) == 0 || frames[len(frames)-1].event != string(event.TurnCompleted) {
		t.Fatalf("stream %s: want it to end with TurnCompleted", frameTypes(frames))
	}
	stored, err := ts.store.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	// Every persisted event is sent with id: SEQ and its JSON exactly as
	// moteur run --json prints it; deltas carry no id.
	bySeq := map[string]string{}
	for _, ev := range stored {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		bySeq[itoa(int64(ev.Seq))] = string(b)
	}
	persisted, deltas := 0, 0
	for _, f := range frames {
		data := strings.Join(f.data, "\n")
		if !f.hasID {
			if !strings.Contains(data, `"ephemeral":true`) {
				t.Errorf("frame %s without id is not ephemeral: %s", f.event, data)
			}
			deltas++
			continue
		}
		persisted++
		if want := bySeq[f.id]; data != want {
			t.Errorf("frame id %s:\n got %s\nwant %s", f.id, data, want)
		}
	}
	if persisted != len(stored) || deltas == 0 {
		t.Errorf("%d persisted frames for %d stored events, %d deltas", persisted, len(stored), deltas)
	}
	var info sessionJSON
	decodeJSON(t, ts.do("GET", "/api/v1/sessions/"+id, ts.key, nil), http.StatusOK, &info)
	if info.Title != "say hello" || info.Events != len(stored) || info.Running {
		t.Errorf("session %+v", info)
	}
	var list struct{ Sessions []sessionJSON }
	decodeJSON(t, ts.do("GET", "/api/v1/sessions", ts.key, nil), http.StatusOK, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id {
		t.Errorf("sessions %+v", list.Sessions)
	}
}

func TestAuthentication(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	resp := ts.do("GET", "/api/v1/sessions", "", nil)
	if resp.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
	wantError(t, resp, http.StatusUnauthorized, CodeUnauthorized)
	wantError(t, ts.do("GET", "/api/v1/sessions", "mk_nope_nope", nil), http.StatusUnauthorized, CodeUnauthorized)
	req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.http.URL+"/api/v1/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+ts.key)
	bearer, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer bearer.Body.Close()
	decodeJSON(t, bearer, http.StatusOK, nil)
	// A revoked key no longer opens anything.
	secret := ts.newKey("gone", apikey.Scope{})
	decodeJSON(t, ts.do("GET", "/api/v1/sessions", secret, nil), http.StatusOK, nil)
	if err := ts.keys.Revoke(t.Context(), "gone"); err != nil {
		t.Fatal(err)
	}
	wantError(t, ts.do("GET", "/api/v1/sessions", secret, nil), http.StatusUnauthorized, CodeUnauthorized)
	// The health check needs none.
	decodeJSON(t, ts.do("GET", "/healthz", "", nil), http.StatusOK, nil)
}

func TestApprovalFromASecondClient(t *testing.T) {
	ts := newTestServer(t, testOptions{mode: "confirm"},
		openaitest.Calls("call_1", "write_file", `{"path":"notes.txt","content":"approved\n"}`),
		openaitest.Answer("written"))
	id := ts.newSession()
	stream := ts.chat(id, "write the notes")
	req := stream.until(t, string(event.PermissionRequested))
	var asked event.Event
	if err := json.Unmarshal([]byte(strings.Join(req[len(req)-1].data, "")), &asked); err != nil {
		t.Fatal(err)
	}
	p := asked.Payload.(event.PermissionRequestedPayload)
	// A second client (a reloaded page) sees the prompt, and answers it.
	var prompts struct{ Prompts []promptJSON }
	decodeJSON(t, ts.do("GET", "/api/v1/sessions/"+id+"/prompts", ts.key, nil), http.StatusOK, &prompts)
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].ID != p.ID || prompts.Prompts[0].Tool != "write_file" || !prompts.Prompts[0].Live {
		t.Fatalf("prompts %+v, want %s", prompts.Prompts, p.ID)
	}
	// Another session's prompt is not answered through this one.
	wantError(t, ts.do("POST", "/api/v1/agent/prompts/"+p.ID, ts.key, map[string]any{"allow": true, "session_id": "s-other"}),
		http.StatusNotFound, "unknown_prompt")
	var ans struct {
		ID, State string
		Allow     bool
	}
	decodeJSON(t, ts.do("POST", "/api/v1/agent/prompts/"+p.ID, ts.key, map[string]any{"allow": true}), http.StatusOK, &ans)
	if ans.ID != p.ID || !ans.Allow {
		t.Errorf("answer %+v", ans)
	}
	rest := stream.rest(t)
	if frameTypes(rest) == "" || rest[len(rest)-1].event != string(event.TurnCompleted) {
		t.Fatalf("after the answer: %s", frameTypes(rest))
	}
	if b, err := os.ReadFile(filepath.Join(ts.root, "notes.txt")); err != nil || string(b) != "approved\n" {
		t.Errorf("notes.txt: %q, %v", b, err)
	}
	// Answered once: the second answer is refused, and nothing is pending.
	wantError(t, ts.do("POST", "/api/v1/agent/prompts/"+p.ID, ts.key, map[string]any{"allow": false}), http.StatusConflict, CodeNotPending)
	decodeJSON(t, ts.do("GET", "/api/v1/sessions/"+id+"/prompts", ts.key, nil), http.StatusOK, &prompts)
	if len(prompts.Prompts) != 0 {
		t.Errorf("prompts still open: %+v", prompts.Prompts)
	}
	wantError(t, ts.do("POST", "/api/v1/agent/prompts/s-x/9", ts.key, map[string]any{"allow": true}), http.StatusNotFound, "unknown_prompt")
	wantError(t, ts.do("POST", "/api/v1/agent/prompts/"+p.ID, ts.key, map[string]any{}), http.StatusBadRequest, CodeInvalidField)
	ts.model.CheckPairing(t)
}

func TestStopCancelsTheRunningTurn(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{})
	defer close(release)
	ts := newTestServer(t, testOptions{}, blockUntil(release, arrived, "late"), openaitest.Answer("rescued"))
	id := ts.newSession()
	stream := ts.chat(id, "take your time")
	<-arrived
	// While it runs: a second question is refused, the session says so.
	wantError(t, ts.do("POST", "/api/v1/agent-chat/"+id, ts.key, map[string]any{"query": "again"}), http.StatusConflict, CodeBusy)
	var info sessionJSON
	decodeJSON(t, ts.do("GET", "/api/v1/sessions/"+id, ts.key, nil), http.StatusOK, &info)
	if !info.Running {
		t.Error("running session not marked running")
	}
	decodeJSON(t, ts.do("POST", "/api/v1/sessions/"+id+"/stop", ts.key, nil), http.StatusAccepted, nil)
	frames := stream.rest(t)
	last := frames[len(frames)-1]
	if last.event != string(event.TurnCompleted) || !strings.Contains(strings.Join(last.data, ""), `"reason":"cancelled"`) {
		t.Fatalf("stream after stop: %s, last %v", frameTypes(frames), last.data)
	}
	wantError(t, ts.do("POST", "/api/v1/sessions/"+id+"/stop", ts.key, nil), http.StatusConflict, CodeNotRunning)
}

func TestClientGoneTurnGoesOn(t *testing.T) {
	release, arrived := make(chan struct{}), make(chan struct{})
	ts := newTestServer(t, testOptions{}, blockUntil(release, arrived, "finished without you"))
	id := ts.newSession()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.http.URL+"/api/v1/agent-chat/"+id, strings.NewReader(`{"query":"go on"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ts.key)
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	streamOf(t, resp).until(t, string(event.UserMessage))
	<-arrived
	cancel() // the client leaves mid-turn
	resp.Body.Close()
	close(release)
	// A follower sees the turn end: it ran on without its client.
	follow := streamOf(t, ts.do("GET", "/api/v1/sessions/"+id+"/events", ts.key, nil))
	done := follow.until(t, string(event.TurnCompleted))
	if data := strings.Join(done[len(done)-1].data, ""); !strings.Contains(data, "finished without you") {
		t.Errorf("TurnCompleted %s", data)
	}
}
