package server

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/internal/npmtest"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// openAIModule is the file: URL of the openai npm package's ES module,
// which the scripts import (an ES module ignores NODE_PATH).
func openAIModule(t *testing.T) string {
	t.Helper()
	path := npmtest.Need(t, filepath.Join(npmtest.Prefix(), "node_modules", "openai", "index.mjs"), "the openai npm package (openai@7.59.0)")
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// runOpenAIClient runs testdata/openai/client.mjs SCENARIO with node 22
// and the official openai client against ts's real listener, as key,
// talking to model, and decodes what it prints into out.
func runOpenAIClient(t *testing.T, ts *testServer, scenario, key, model string, out any) {
	t.Helper()
	node, module := npmtest.Node22(t), openAIModule(t)
	script, err := filepath.Abs(filepath.Join("testdata", "openai", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, script, scenario)
	cmd.Env = []string{"OPENAI_MODULE=" + module, "OPENAI_BASE_URL=" + ts.http.URL + "/v1", "OPENAI_API_KEY=" + key,
		"MOTEUR_MODEL=" + model, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %s: %v\nstderr: %s\nstdout: %s", scenario, err, stderr.String(), stdout.String())
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), out); err != nil {
		t.Fatalf("node client.mjs %s printed %q: %v (stderr %s)", scenario, stdout.String(), err, stderr.String())
	}
}

// nodeCompletion is what the complete scenario prints.
type nodeCompletion struct {
	Object, Model, Content, Role string
	FinishReason                 string `json:"finish_reason"`
	Usage                        struct {
		TotalTokens int `json:"total_tokens"`
	}
	SessionID     string       `json:"session_id"`
	HeaderSession string       `json:"header_session"`
	DeniedCalls   []deniedCall `json:"denied_calls"`
}

func TestOpenAINodeClientNonStreaming(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("Hello from Moteur."))
	agent := smartAgent(ts, "greeter", "")
	var got nodeCompletion
	runOpenAIClient(t, ts, "complete", ts.key, agent.ID, &got)
	if got.Object != "chat.completion" || got.Model != agent.ID || got.Role != "assistant" || got.Content != "Hello from Moteur." ||
		got.FinishReason != "stop" || got.Usage.TotalTokens != 13 || got.SessionID == "" || got.HeaderSession != got.SessionID {
		t.Errorf("the openai client read %+v", got)
	}
}

func TestOpenAINodeClientStreaming(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Stream(openaitest.Text("Hello, "), openaitest.Text("streaming "), openaitest.Text("world."),
			openaitest.Chunk(`{}`, "stop"), openaitest.Usage(5, 4), openaitest.Done),
		openaitest.Answer("Again."))
	agent := smartAgent(ts, "streamer", "")
	var got struct {
		Content      string
		Chunks       int
		FinishReason string `json:"finish_reason"`
		Usage        struct {
			TotalTokens int `json:"total_tokens"`
		}
		SessionID     string `json:"session_id"`
		HelperContent string `json:"helper_content"`
	}
	runOpenAIClient(t, ts, "stream", ts.key, agent.ID, &got)
	// role, three deltas, the finishing chunk, usage.
	if got.Content != "Hello, streaming world." || got.Chunks < 6 || got.FinishReason != "stop" || got.Usage.TotalTokens != 9 || got.SessionID == "" {
		t.Errorf("the openai client streamed %+v", got)
	}
	if got.HelperContent != "Again." {
		t.Errorf("chat.completions.stream() accumulated %q", got.HelperContent)
	}
}

func TestOpenAINodeClientToolUsingAgent(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Calls("call_1", "write_file", `{"path":"report.md","content":"# Report\n"}`),
		openaitest.Answer("I wrote report.md."))
	agent := smartAgent(ts, "writer", agentconfig.AccessAutoWrite)
	var got nodeCompletion
	runOpenAIClient(t, ts, "complete", ts.key, agent.ID, &got)
	if got.Content != "I wrote report.md." || len(got.DeniedCalls) != 0 {
		t.Errorf("the openai client read %+v", got)
	}
	if b, err := os.ReadFile(filepath.Join(ts.root, "report.md")); err != nil || string(b) != "# Report\n" {
		t.Errorf("report.md: %q, %v: the server should have run the tool", b, err)
	}
	ts.model.CheckPairing(t)
}

func TestOpenAINodeClientApprovalRefused(t *testing.T) {
	ts := newTestServer(t, testOptions{},
		openaitest.Calls("call_1", "write_file", `{"path":"x.txt","content":"x"}`),
		openaitest.Answer("The write needs an approval I cannot get."))
	agent := smartAgent(ts, "careful", agentconfig.AccessConfirm)
	var got nodeCompletion
	runOpenAIClient(t, ts, "complete", ts.key, agent.ID, &got)
	if len(got.DeniedCalls) != 1 || got.DeniedCalls[0].Tool != "write_file" ||
		!strings.Contains(got.DeniedCalls[0].Reason, "needs an approval") || !strings.Contains(got.DeniedCalls[0].Reason, "does not allow waiting") {
		t.Errorf("denied calls %+v", got.DeniedCalls)
	}
	if _, err := os.Stat(filepath.Join(ts.root, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("x.txt: %v, want it not written", err)
	}
}

func TestOpenAINodeClientModelsAndErrors(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	agent := smartAgent(ts, "listed", "")
	var models struct {
		IDs       []string
		Retrieved string
	}
	runOpenAIClient(t, ts, "models", ts.key, agent.ID, &models)
	if models.Retrieved != agent.ID || !strings.Contains(strings.Join(models.IDs, " "), agent.ID) ||
		!strings.Contains(strings.Join(models.IDs, " "), "builtin-quick-answer") {
		t.Errorf("models %+v", models)
	}
	type apiError struct {
		Name, Code, Message string
		Status              int
	}
	var errs struct {
		UnknownModel apiError `json:"unknown_model"`
		BadKey       apiError `json:"bad_key"`
		ClientTools  apiError `json:"client_tools"`
	}
	runOpenAIClient(t, ts, "errors", ts.key, agent.ID, &errs)
	if e := errs.UnknownModel; e.Name != "NotFoundError" || e.Code != CodeModelNotFound || !strings.Contains(e.Message, "GET /v1/models") {
		t.Errorf("unknown model: %+v", e)
	}
	if e := errs.BadKey; e.Name != "AuthenticationError" || e.Status != 401 || e.Code != CodeUnauthorized || !strings.Contains(e.Message, "invalid API key") {
		t.Errorf("bad key: %+v", e)
	}
	if e := errs.ClientTools; e.Name != "BadRequestError" || e.Code != CodeUnsupported || !strings.Contains(e.Message, "client-side tools") {
		t.Errorf("client tools: %+v", e)
	}
	if n := len(ts.model.Requests()); n != 0 {
		t.Errorf("%d model requests: no error should reach the model", n)
	}
}

func TestOpenAINodeClientDoesNotRetryAFailedTurn(t *testing.T) {
	// One scripted reply: a second request (a retry) would fail the test.
	ts := newTestServer(t, testOptions{}, openaitest.Status(400, "invalid_request_error", "the model refuses"))
	agent := smartAgent(ts, "broken", "")
	var got struct {
		Error *struct {
			Name, Code, Message string
			Status              int
		}
	}
	runOpenAIClient(t, ts, "failure", ts.key, agent.ID, &got)
	if got.Error == nil || got.Error.Status != 502 || got.Error.Code != CodeTurnFailed || !strings.Contains(got.Error.Message, "the model refuses") {
		t.Errorf("the openai client got %+v", got.Error)
	}
	if n := len(ts.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the client retried the turn", n)
	}
}
