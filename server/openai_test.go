package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// openAIPost posts a chat completion request with key and the extra
// headers (name, value pairs).
func (ts *testServer) openAIPost(key string, body any, headers ...string) *http.Response {
	ts.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		ts.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ts.t.Context(), "POST", ts.http.URL+"/v1/chat/completions", bytes.NewReader(b))
	if err != nil {
		ts.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// openAICompletion is a chat.completion as a client decodes it.
type openAICompletion struct {
	ID, Object, Model string
	Created           int64
	Choices           []struct {
		Index   int
		Message struct{ Role, Content string }
		Delta   struct {
			Role    string
			Content *string
		}
		FinishReason *string `json:"finish_reason"`
	}
	Usage       *llm.Usage
	SessionID   string `json:"session_id"`
	StopReason  string `json:"stop_reason"`
	Citations   []struct{ Alias, Kind, Title string }
	DeniedCalls []deniedCall `json:"denied_calls"`
	Prompt      *promptRef
}

// openAIChunks reads a completion's stream to [DONE]: its chunks, and
// whether [DONE] came.
func openAIChunks(t *testing.T, resp *http.Response) (chunks []openAICompletion, done bool) {
	t.Helper()
	stream := streamOf(t, resp)
	for {
		f, err := stream.next(t)
		if err != nil {
			return chunks, false
		}
		if f.comment != "" {
			continue
		}
		if f.event != "" || f.hasID {
			t.Fatalf("chunk frame with event %q / id %q: OpenAI streams are data only", f.event, f.id)
		}
		data := strings.Join(f.data, "\n")
		if data == "[DONE]" {
			if _, err := stream.next(t); err != io.EOF {
				t.Errorf("data after [DONE]: %v", err)
			}
			return chunks, true
		}
		var c openAICompletion
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		chunks = append(chunks, c)
	}
}

// streamedText joins the content of chunks.
func streamedText(chunks []openAICompletion) string {
	var b strings.Builder
	for _, c := range chunks {
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				b.WriteString(*ch.Delta.Content)
			}
		}
	}
	return b.String()
}

// wantOpenAIError checks an error response in OpenAI's shape (message,
// type, code) and returns its message.
func wantOpenAIError(t *testing.T, resp *http.Response, status int, code string) string {
	t.Helper()
	var body struct {
		Error struct{ Message, Type, Code string }
	}
	decodeJSON(t, resp, status, &body)
	if body.Error.Code != code || body.Error.Message == "" || body.Error.Type == "" {
		t.Fatalf("error %+v, want code %q with a message and a type", body.Error, code)
	}
	return body.Error.Message
}

// smartAgent stores a smart-reasoning agent with access level access
// ("": the default) and the file tools beside the default ones.
func smartAgent(ts *testServer, name, access string) agentconfig.Agent {
	tools := append(agentconfig.DefaultAllowedTools(), "read_file", "write_file")
	return ts.newAgent(name, agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeSmartReasoning, AccessLevel: access,
		AllowedTools: tools})
}

func userMessage(text string) map[string]any { return map[string]any{"role": "user", "content": text} }

func TestOpenAICompletionIsTheAgentsAnswer(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("Bonjour."))
	agent := smartAgent(ts, "greeter", "")
	resp := ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("say hello")},
		"temperature": 0.2, "max_tokens": 50})
	var c openAICompletion
	decodeJSON(t, resp, http.StatusOK, &c)
	if c.Object != "chat.completion" || c.Model != agent.ID || len(c.Choices) != 1 || c.Choices[0].Message.Role != "assistant" ||
		c.Choices[0].Message.Content != "Bonjour." || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != "stop" {
		t.Fatalf("completion %+v", c)
	}
	// Usage is the turn's, as TurnCompleted counts it (the scripted model
	// reports 10 + 3).
	if c.Usage == nil || c.Usage.PromptTokens != 10 || c.Usage.CompletionTokens != 3 || c.Usage.TotalTokens != 13 {
		t.Errorf("usage %+v", c.Usage)
	}
	// Each request without a session is a new session, named in the
	// header and the body, and stored as the agent's.
	if c.SessionID == "" || resp.Header.Get(SessionHeader) != c.SessionID || c.StopReason != event.StopNatural {
		t.Fatalf("session %q, header %q, stop %q", c.SessionID, resp.Header.Get(SessionHeader), c.StopReason)
	}
	info, err := ts.store.Info(t.Context(), c.SessionID)
	if err != nil || info.Agent != agent.ID {
		t.Fatalf("session %+v, %v: want it stored, run by %s", info, err, agent.ID)
	}
	if !strings.HasPrefix(c.ID, "chatcmpl-"+c.SessionID) {
		t.Errorf("id %q", c.ID)
	}
}

func TestOpenAIStreamingSendsTheAnswerAsChunks(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Stream(openaitest.Text("Hello "), openaitest.Text("world"),
		openaitest.Chunk(`{}`, "stop"), openaitest.Usage(7, 2), openaitest.Done))
	agent := smartAgent(ts, "streamer", "")
	resp := ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("greet")}, "stream": true,
		"stream_options": map[string]any{"include_usage": true}})
	chunks, done := openAIChunks(t, resp)
	if !done || len(chunks) < 4 {
		t.Fatalf("%d chunks, [DONE] %v", len(chunks), done)
	}
	id := resp.Header.Get(SessionHeader)
	first, finish, usage := chunks[0], chunks[len(chunks)-2], chunks[len(chunks)-1]
	if first.Choices[0].Delta.Role != "assistant" || first.SessionID != id || id == "" {
		t.Errorf("first chunk %+v, session header %q", first, id)
	}
	for _, c := range chunks {
		if c.Object != "chat.completion.chunk" || c.ID != first.ID || c.Model != agent.ID {
			t.Errorf("chunk %+v: want object chat.completion.chunk, id %s, model %s", c, first.ID, agent.ID)
		}
	}
	// The text arrives as the model writes it: one chunk per delta.
	if got := streamedText(chunks); got != "Hello world" {
		t.Errorf("streamed %q", got)
	}
	if len(chunks) < 5 {
		t.Errorf("%d chunks: want the two deltas apart", len(chunks))
	}
	if len(finish.Choices) != 1 || finish.Choices[0].FinishReason == nil || *finish.Choices[0].FinishReason != "stop" ||
		finish.SessionID != id || finish.StopReason != event.StopNatural {
		t.Errorf("finishing chunk %+v", finish)
	}
	if len(usage.Choices) != 0 || usage.Usage == nil || usage.Usage.TotalTokens != 9 {
		t.Errorf("usage chunk %+v", usage)
	}
	// Without include_usage no chunk carries usage.
	for _, c := range chunks[:len(chunks)-1] {
		if c.Usage != nil {
			t.Errorf("usage on a chunk before the last: %+v", c)
		}
	}
}

func TestOpenAIToolUsingAgentRunsItsToolsOnTheServer(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Stream(openaitest.Text("Let me write it."), openaitest.ToolCall(0, "call_1", "write_file", `{"path":"out.txt","content":"from the door\n"}`),
			openaitest.Chunk(`{}`, "tool_calls"), openaitest.Done),
		openaitest.Answer("Written to out.txt."))
	agent := smartAgent(ts, "writer", agentconfig.AccessAutoWrite)
	chunks, done := openAIChunks(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "stream": true,
		"messages": []any{userMessage("write out.txt")}}))
	if !done {
		t.Fatal("no [DONE]")
	}
	// The server ran the tool: the file is in the project.
	if b, err := os.ReadFile(filepath.Join(ts.root, "out.txt")); err != nil || string(b) != "from the door\n" {
		t.Fatalf("out.txt: %q, %v", b, err)
	}
	// The text of the round that called the tool, then the answer, apart.
	if got := streamedText(chunks); got != "Let me write it.\n\nWritten to out.txt." {
		t.Errorf("streamed %q", got)
	}
	// The model saw the tool's result.
	reqs := ts.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleTool || last.ToolCallID != "call_1" {
		t.Errorf("second request ends with %+v, want the tool result", last)
	}
	ts.model.CheckPairing(t)
	// The non-streaming answer of the same kind of turn is the answer only.
	ts2 := newTestServer(t, testOptions{},
		openaitest.Calls("call_1", "write_file", `{"path":"b.txt","content":"b"}`), openaitest.Answer("Done."))
	agent2 := smartAgent(ts2, "writer", agentconfig.AccessAutoWrite)
	var c openAICompletion
	decodeJSON(t, ts2.openAIPost(ts2.key, map[string]any{"model": agent2.ID, "messages": []any{userMessage("write b")}}), http.StatusOK, &c)
	if c.Choices[0].Message.Content != "Done." || len(c.DeniedCalls) != 0 {
		t.Errorf("completion %+v", c)
	}
	if _, err := os.Stat(filepath.Join(ts2.root, "b.txt")); err != nil {
		t.Error(err)
	}
}

func TestOpenAIApprovalRefusedForAKeyThatMayNotWait(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Calls("call_1", "write_file", `{"path":"secret.txt","content":"x"}`),
		openaitest.Answer("I could not write it."))
	agent := smartAgent(ts, "careful", agentconfig.AccessConfirm)
	var c openAICompletion
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("write secret.txt")}}),
		http.StatusOK, &c)
	if c.Choices[0].Message.Content != "I could not write it." {
		t.Errorf("answer %q", c.Choices[0].Message.Content)
	}
	if _, err := os.Stat(filepath.Join(ts.root, "secret.txt")); !os.IsNotExist(err) {
		t.Errorf("secret.txt: %v, want it not written", err)
	}
	// The call was asked for (the attempt was made), and refused with a
	// reason saying why, which the response, the log and the model carry.
	if len(c.DeniedCalls) != 1 || c.DeniedCalls[0].Tool != "write_file" || c.DeniedCalls[0].Summary == "" {
		t.Fatalf("denied calls %+v", c.DeniedCalls)
	}
	reason := c.DeniedCalls[0].Reason
	if !strings.Contains(reason, "needs an approval") || !strings.Contains(reason, "does not allow waiting") {
		t.Errorf("reason %q: want it to say the call needs an approval and the key may not wait", reason)
	}
	evs, err := ts.store.Load(t.Context(), c.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var asked, resolved bool
	for _, ev := range evs {
		switch p := ev.Payload.(type) {
		case event.PermissionRequestedPayload:
			asked = p.Tool == "write_file"
		case event.PermissionResolvedPayload:
			resolved = !p.Allow && p.Reason == reason
		}
	}
	if !asked || !resolved {
		t.Errorf("log: requested %v, resolved with the reason %v", asked, resolved)
	}
	msgs := ts.model.Requests()[1].Messages
	if tool := msgs[len(msgs)-1]; !strings.Contains(tool.Content, "does not allow waiting") {
		t.Errorf("the model read %q", tool.Content)
	}
}

func TestOpenAIKeyThatMayWaitWaitsForTheApproval(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Calls("call_1", "write_file", `{"path":"ok.txt","content":"approved"}`),
		openaitest.Answer("Written."))
	agent := smartAgent(ts, "careful", agentconfig.AccessConfirm)
	waiter := ts.newKey("waiter", apikey.Scope{Wait: true})
	resp := ts.openAIPost(waiter, map[string]any{"model": agent.ID, "stream": true, "messages": []any{userMessage("write ok.txt")}})
	stream := streamOf(t, resp)
	var prompt *promptRef
	for prompt == nil {
		f := stream.mustNext(t)
		var c openAICompletion
		if f.comment != "" || json.Unmarshal([]byte(strings.Join(f.data, "")), &c) != nil {
			continue
		}
		prompt = c.Prompt
		if prompt != nil && len(c.Choices) != 0 {
			t.Errorf("prompt chunk with choices: %+v", c)
		}
	}
	if prompt.Tool != "write_file" || prompt.ID == "" {
		t.Fatalf("prompt %+v", prompt)
	}
	// A person approves it through the API; the turn goes on.
	decodeJSON(t, ts.do("POST", "/api/v1/agent/prompts/"+prompt.ID, ts.key, map[string]any{"allow": true}), http.StatusOK, nil)
	chunks, done := openAIChunks(t, &http.Response{StatusCode: 200, Header: resp.Header, Body: io.NopCloser(stream.br), Request: resp.Request})
	if !done || streamedText(chunks) != "Written." {
		t.Errorf("after the approval: %q, [DONE] %v", streamedText(chunks), done)
	}
	if b, err := os.ReadFile(filepath.Join(ts.root, "ok.txt")); err != nil || string(b) != "approved" {
		t.Errorf("ok.txt: %q, %v", b, err)
	}
}

func TestOpenAIConversationMapsToASession(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("Paris."), openaitest.Answer("About 2 million."), openaitest.Answer("Yes."))
	agent := smartAgent(ts, "geo", "")
	// A new session named by the user field: the earlier messages of the
	// request are given as context, before the question.
	history := []any{
		map[string]any{"role": "system", "content": "Answer in one word."},
		map[string]any{"role": "user", "content": "I am planning a trip."},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Where to?"}}},
		userMessage("What is the capital of France?"),
	}
	var first openAICompletion
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": history, "user": "trip-1"}), http.StatusOK, &first)
	if first.SessionID != "trip-1" {
		t.Fatalf("session %q, want trip-1", first.SessionID)
	}
	evs, err := ts.store.Load(t.Context(), "trip-1")
	if err != nil {
		t.Fatal(err)
	}
	var asked string
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.UserMessagePayload); ok {
			asked = p.Text
		}
	}
	for _, want := range []string{"[system] Answer in one word.", "[user] I am planning a trip.", "[assistant] Where to?", "What is the capital of France?"} {
		if !strings.Contains(asked, want) {
			t.Errorf("question %q lacks %q", asked, want)
		}
	}
	if !strings.HasSuffix(asked, "\n\nWhat is the capital of France?") {
		t.Errorf("question %q: want the question last", asked)
	}
	// The same session named by the header: it continues; what the client
	// sends again is not repeated, the session's own history is used.
	history = append(history, map[string]any{"role": "assistant", "content": "Paris."}, userMessage("How many people live there?"))
	var second openAICompletion
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": history}, SessionHeader, "trip-1"), http.StatusOK, &second)
	if second.SessionID != "trip-1" || second.Choices[0].Message.Content != "About 2 million." {
		t.Fatalf("second %+v", second)
	}
	msgs := ts.model.Requests()[1].Messages
	var users []string
	for _, m := range msgs {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || users[0] != asked || users[1] != "How many people live there?" {
		t.Errorf("the model's user messages %q", users)
	}
	// The header wins over the user field.
	var third openAICompletion
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("Sure?")}, "user": "other"},
		SessionHeader, "trip-1"), http.StatusOK, &third)
	if third.SessionID != "trip-1" {
		t.Errorf("third session %q", third.SessionID)
	}
	if _, err := ts.store.Info(t.Context(), "other"); err == nil {
		t.Error("session other was made")
	}
}

func TestOpenAIModelsAreTheKeysAgents(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	custom := smartAgent(ts, "mine", "")
	var list struct {
		Object string
		Data   []modelJSON
	}
	decodeJSON(t, ts.do("GET", "/v1/models", ts.key, nil), http.StatusOK, &list)
	ids := map[string]modelJSON{}
	for _, m := range list.Data {
		ids[m.ID] = m
	}
	if list.Object != "list" || ids["builtin-quick-answer"].Object != "model" || ids["builtin-smart-reasoning"].ID == "" ||
		ids[custom.ID].Name != "mine" || ids[custom.ID].Created == 0 || ids[custom.ID].OwnedBy == "" || ids[custom.ID].Builtin {
		t.Fatalf("models %+v", list)
	}
	limited := ts.newKey("limited", apikey.Scope{Agents: []string{custom.ID}})
	decodeJSON(t, ts.do("GET", "/v1/models", limited, nil), http.StatusOK, &list)
	if len(list.Data) != 1 || list.Data[0].ID != custom.ID {
		t.Errorf("limited key's models %+v", list.Data)
	}
	var one modelJSON
	decodeJSON(t, ts.do("GET", "/v1/models/"+custom.ID, limited, nil), http.StatusOK, &one)
	if one.ID != custom.ID || one.AgentMode != agentconfig.ModeSmartReasoning {
		t.Errorf("model %+v", one)
	}
	wantOpenAIError(t, ts.do("GET", "/v1/models/builtin-quick-answer", limited, nil), http.StatusForbidden, CodeForbidden)
	wantOpenAIError(t, ts.do("GET", "/v1/models/nope", ts.key, nil), http.StatusNotFound, CodeModelNotFound)
	wantError(t, ts.do("GET", "/v1/models", "", nil), http.StatusUnauthorized, CodeUnauthorized)
	wantOpenAIError(t, ts.do("GET", "/v1/embeddings", ts.key, nil), http.StatusNotFound, "no_route")
}

func TestOpenAIBadRequests(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("first"))
	agent := smartAgent(ts, "a", "")
	other := smartAgent(ts, "b", "")
	msgs := []any{userMessage("hi")}
	cases := []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"no model", map[string]any{"messages": msgs}, 400, CodeInvalidField},
		{"unknown model", map[string]any{"model": "gpt-nope", "messages": msgs}, 404, CodeModelNotFound},
		{"no messages", map[string]any{"model": agent.ID}, 400, CodeNoQuestion},
		{"last not user", map[string]any{"model": agent.ID, "messages": []any{userMessage("hi"), map[string]any{"role": "assistant", "content": "x"}}}, 400, CodeNoQuestion},
		{"empty question", map[string]any{"model": agent.ID, "messages": []any{userMessage("  ")}}, 400, CodeNoQuestion},
		{"bad role", map[string]any{"model": agent.ID, "messages": []any{map[string]any{"role": "robot", "content": "x"}, userMessage("hi")}}, 400, CodeInvalidMessage},
		{"image part", map[string]any{"model": agent.ID, "messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image_url"}}}}}, 400, CodeUnsupported},
		{"client tools", map[string]any{"model": agent.ID, "messages": msgs, "tools": []any{map[string]any{"type": "function"}}}, 400, CodeUnsupported},
		{"n=2", map[string]any{"model": agent.ID, "messages": msgs, "n": 2}, 400, CodeUnsupported},
		{"json schema", map[string]any{"model": agent.ID, "messages": msgs, "response_format": map[string]any{"type": "json_schema"}}, 400, CodeUnsupported},
		{"unknown field", map[string]any{"model": agent.ID, "messages": msgs, "frobnicate": true}, 400, CodeUnknownField},
		{"bad session", map[string]any{"model": agent.ID, "messages": msgs, "user": "../etc"}, 400, CodeInvalidSession},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := wantOpenAIError(t, ts.openAIPost(ts.key, tc.body), tc.status, tc.code)
			t.Log(msg)
		})
	}
	limited := ts.newKey("limited", apikey.Scope{Agents: []string{agent.ID}})
	wantOpenAIError(t, ts.openAIPost(limited, map[string]any{"model": other.ID, "messages": msgs}), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.openAIPost("mk_bad_bad", map[string]any{"model": agent.ID, "messages": msgs}), http.StatusUnauthorized, CodeUnauthorized)
	// A session of one agent is not continued as another.
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": msgs, "user": "s1"}), http.StatusOK, nil)
	wantOpenAIError(t, ts.openAIPost(ts.key, map[string]any{"model": other.ID, "messages": msgs, "user": "s1"}), http.StatusConflict, CodeAgentMismatch)
	if n := len(ts.model.Requests()); n != 1 {
		t.Errorf("%d model requests: only the valid one reaches the model", n)
	}
}

// openAIBase makes a knowledge base of one document.
func openAIBase(t *testing.T, ts *testServer, name, title, body string) {
	t.Helper()
	st, err := kb.Open(t.Context(), kb.Config{Path: session.DefaultPath(ts.home)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Create(t.Context(), name, kb.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddText(t.Context(), name, kb.Text{Key: name + ".md", Title: title, Body: body}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAIQuickAnswerCarriesCitations(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("The sky is blue [c1]."), openaitest.Answer("Blue [c1]."))
	openAIBase(t, ts, "sky", "The sky", "The sky is blue because of Rayleigh scattering.")
	msgs := []any{userMessage("Why is the sky blue?")}
	var c openAICompletion
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": "builtin-quick-answer", "messages": msgs}), http.StatusOK, &c)
	if c.Choices[0].Message.Content != "The sky is blue [c1]." || len(c.Citations) != 1 || c.Citations[0].Alias != "c1" || c.Citations[0].Title != "The sky" {
		t.Fatalf("completion %+v", c)
	}
	chunks, done := openAIChunks(t, ts.openAIPost(ts.key, map[string]any{"model": "builtin-quick-answer", "messages": msgs, "stream": true}))
	if !done {
		t.Fatal("no [DONE]")
	}
	finish := chunks[len(chunks)-1]
	if streamedText(chunks) != "Blue [c1]." || len(finish.Citations) != 1 || finish.Citations[0].Alias != "c1" {
		t.Errorf("streamed %q, finishing chunk %+v", streamedText(chunks), finish)
	}
	for _, ch := range chunks[:len(chunks)-1] {
		if len(ch.Citations) != 0 {
			t.Errorf("citations before the finishing chunk: %+v", ch)
		}
	}
}

func TestOpenAIFailedTurnIsAnError(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Status(400, "invalid_request_error", "the model refuses"),
		openaitest.Status(400, "invalid_request_error", "the model refuses again"))
	agent := smartAgent(ts, "broken", "")
	resp := ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("hi")}})
	// The turn ran and is recorded: OpenAI clients must not run it again.
	if resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("X-Should-Retry %q, want false", resp.Header.Get("X-Should-Retry"))
	}
	msg := wantOpenAIError(t, resp, http.StatusBadGateway, CodeTurnFailed)
	if !strings.Contains(msg, "the model refuses") {
		t.Errorf("message %q", msg)
	}
	// Streaming: the error comes as data {"error": …}, which OpenAI
	// clients raise, and no [DONE].
	stream := streamOf(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("hi")}, "stream": true}))
	var last string
	for {
		f, err := stream.next(t)
		if err != nil {
			break
		}
		if f.comment == "" {
			last = strings.Join(f.data, "\n")
		}
	}
	var body struct {
		Error struct{ Message, Type, Code string }
	}
	if err := json.Unmarshal([]byte(last), &body); err != nil || body.Error.Code != CodeTurnFailed ||
		!strings.Contains(body.Error.Message, "refuses again") || body.Error.Type != "server_error" {
		t.Errorf("last frame %s (%v): want the error", last, err)
	}
}

// TestOpenAIReplyKeepsOnlyTheTopLevelAnswer feeds a reply the events of a
// turn: a sub-agent's text, reasoning and tool calls are not sent; a
// retried round and a round that called tools are set apart; an answer
// Moteur wrote itself (nothing streamed of it) is sent at the end.
func TestOpenAIReplyKeepsOnlyTheTopLevelAnswer(t *testing.T) {
	top := func(typ event.Type, p any) event.Event { return event.Event{Type: typ, Payload: p} }
	sub := func(typ event.Type, p any) event.Event {
		return event.Event{Type: typ, Payload: p, ParentCallID: "call_agent"}
	}
	var r reply
	var sent strings.Builder
	for _, ev := range []event.Event{
		top(event.ReasoningDelta, event.DeltaPayload{Text: "thinking", Round: 1}),
		top(event.AssistantDelta, event.DeltaPayload{Text: "Half", Round: 1}),
		top(event.ProviderRetry, event.ProviderRetryPayload{Attempt: 1}),
		top(event.AssistantDelta, event.DeltaPayload{Text: "Asking a helper.", Round: 1}),
		top(event.AssistantMessage, event.AssistantMessagePayload{Text: "Asking a helper.", ToolCalls: []llm.ToolCall{{ID: "call_agent", Name: "agent"}}}),
		sub(event.AssistantDelta, event.DeltaPayload{Text: "sub-agent text", Round: 1}),
		sub(event.AssistantMessage, event.AssistantMessagePayload{Text: "sub-agent text"}),
		sub(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopNatural, Answer: "sub-agent text"}),
		top(event.ToolResult, event.ToolResultPayload{CallID: "call_agent", Content: "sub-agent text"}),
		top(event.AssistantMessage, event.AssistantMessagePayload{Text: "No answer came.", Synthetic: true}),
		top(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopEmptyFallback, Answer: "No answer came."}),
	} {
		text, _ := r.feed(ev)
		sent.WriteString(text)
	}
	if got, want := sent.String(), "Half\n\nAsking a helper.\n\nNo answer came."; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	if r.done == nil || r.done.Answer != "No answer came." || r.failed() {
		t.Errorf("done %+v", r.done)
	}
	// An answer streamed whole is not sent again, even when the log keeps
	// it masked.
	var m reply
	sent.Reset()
	for _, ev := range []event.Event{
		top(event.AssistantDelta, event.DeltaPayload{Text: "key sk-123", Round: 1}),
		top(event.AssistantMessage, event.AssistantMessagePayload{Text: "key [masked]"}),
		top(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopNatural, Answer: "key [masked]"}),
	} {
		text, _ := m.feed(ev)
		sent.WriteString(text)
	}
	if sent.String() != "key sk-123" {
		t.Errorf("sent %q", sent.String())
	}
}

// FuzzOpenAIRequest: any body decodes, checks and gives its question (or
// an *Error) without a panic, and an accepted question ends with the last
// message's text.
func FuzzOpenAIRequest(f *testing.F) {
	for _, seed := range []string{
		`{"model":"a","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"a","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		`{"model":"a","messages":[{"role":"user","content":null}]}`,
		`{"model":"a","messages":[{"role":"assistant","content":"x"}],"n":2}`,
		`{"model":"a","messages":[{"role":"user","content":[{"type":"image_url"}]}],"tools":[]}`,
		`{"model":"a","messages":[{"role":"user","content":"\"q\""}],"tool_choice":{"type":"function"}}`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, fresh bool) {
		var req completionRequest
		if json.Unmarshal(body, &req) != nil {
			return
		}
		if err := req.check(); err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
				t.Fatalf("check: %v, want a 400 *Error", err)
			}
			return
		}
		q, err := questionOf(req.Messages, fresh, i18n.EN)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
				t.Fatalf("questionOf: %v, want a 400 *Error", err)
			}
			return
		}
		last, _ := req.Messages[len(req.Messages)-1].text(0)
		if !strings.HasSuffix(q, last) || strings.TrimSpace(q) == "" {
			t.Fatalf("question %q does not end with the last message %q", q, last)
		}
	})
}

func TestOpenAIKeyLimitedToSomeBases(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("Blue."))
	openAIBase(t, ts, "sky", "The sky", "The sky is blue because of Rayleigh scattering.")
	openAIBase(t, ts, "secret", "The secret sky", "The sky is blue, says the secret report.")
	limited := ts.newKey("sky-only", apikey.Scope{Bases: []string{"sky"}})
	var c openAICompletion
	decodeJSON(t, ts.openAIPost(limited, map[string]any{"model": "builtin-quick-answer", "messages": []any{userMessage("Why is the sky blue?")}}),
		http.StatusOK, &c)
	evs, err := ts.store.Load(t.Context(), c.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var bases []string
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.KnowledgeRetrievedPayload); ok {
			for _, r := range p.References {
				bases = append(bases, r.BaseName)
			}
		}
	}
	if len(bases) == 0 || strings.Contains(strings.Join(bases, " "), "secret") {
		t.Errorf("retrieved from %q: want the key's base only", bases)
	}
	// An agent whose bases the key may not use is refused.
	secretAgent := ts.newAgent("secretive", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeQuickAnswer,
		KBSelectionMode: agentconfig.SelectSelected, KnowledgeBases: []string{"secret"}})
	wantOpenAIError(t, ts.openAIPost(limited, map[string]any{"model": secretAgent.ID, "messages": []any{userMessage("Why?")}}),
		http.StatusForbidden, CodeForbidden)
}
