package openai

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/moteur/moteur/llm"
)

// recordedDir holds real streams recorded from DeepSeek. They are reference
// data outside the repository and must not be copied into it.
var recordedDir = filepath.Join("..", "..", "..", "shared", "fixtures", "recorded")

// replay serves a recorded stream's bytes as they are and decodes them.
func replay(t *testing.T, file string) (llm.Response, *recorder) {
	t.Helper()
	path := filepath.Join(recordedDir, file)
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("recorded streams not available: %s is missing", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(raw)
	})
	return mustStream(t, srv)
}

func TestRecordedSimple(t *testing.T) {
	resp, rec := replay(t, "deepseek-simple.sse")
	want := llm.Response{
		Text: "Hello! How can I help you today?", Finish: llm.FinishStop, RawFinish: "stop",
		Usage: &llm.Usage{PromptTokens: 8974, CompletionTokens: 11, TotalTokens: 8985},
		Model: "deepseek-v4-pro-0813",
	}
	assertResponse(t, resp, want)
	if text, _ := rec.text(); text != want.Text {
		t.Errorf("streamed text %q", text)
	}
}

func TestRecordedParallelCalls(t *testing.T) {
	resp, rec := replay(t, "deepseek-parallel-calls.sse")
	want := llm.Response{
		Reasoning: "The user wants me to run glob for .go files and ls for current directory in parallel.",
		ToolCalls: []llm.ToolCall{
			{ID: "call_67389dea0febe22c", Name: "glob", Arguments: `{"pattern":"**/*.go"}`},
			{ID: "call_9b9d9dc30e777faf", Name: "ls", Arguments: `{"path":"/tmp/crush-test/TestCoderAgent/deepseek-v4/parallel_tool_calls"}`},
		},
		Finish: llm.FinishToolCalls, RawFinish: "tool_calls",
		Usage: &llm.Usage{PromptTokens: 9005, CompletionTokens: 115, TotalTokens: 9120},
		Model: "deepseek-v4-pro-0813",
	}
	assertResponse(t, resp, want)
	for _, c := range resp.ToolCalls {
		if !json.Valid([]byte(c.Arguments)) {
			t.Errorf("invalid arguments for %s: %s", c.Name, c.Arguments)
		}
	}
	if text, _ := rec.text(); text != "" {
		t.Errorf("the whitespace before the calls was streamed as text: %q", text)
	}
}

func TestRecordedBashCall(t *testing.T) {
	resp, _ := replay(t, "deepseek-bash-call.sse")
	assertResponse(t, resp, llm.Response{
		ToolCalls: []llm.ToolCall{{ID: "call_bd535f418b3303f9", Name: "bash",
			Arguments: `{"command":"printf 'hello bash' > test.txt","description":"Create test.txt with content"}`}},
		Finish: llm.FinishToolCalls, RawFinish: "tool_calls",
		Usage: &llm.Usage{PromptTokens: 8993, CompletionTokens: 71, TotalTokens: 9064},
		Model: "deepseek-v4-pro-0813",
	})
}

func TestRecordedParallelAnswer(t *testing.T) {
	resp, _ := replay(t, "deepseek-parallel-answer.sse")
	assertResponse(t, resp, llm.Response{
		Text:   ".go files: `main.go`. Directory has `go.mod` and `main.go`.",
		Finish: llm.FinishStop, RawFinish: "stop",
		Usage: &llm.Usage{PromptTokens: 9175, CompletionTokens: 20, TotalTokens: 9195},
		Model: "deepseek-v4-pro-0813",
	})
}

func assertResponse(t *testing.T, got, want llm.Response) {
	t.Helper()
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	if string(g) != string(w) {
		t.Errorf("response\n%s\nwant\n%s", g, w)
	}
}
