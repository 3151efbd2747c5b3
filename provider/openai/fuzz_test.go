package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// decodeBytes decodes in as an event stream, as Stream does a 200 answer.
func decodeBytes(in []byte, onDelta func(llm.Delta)) (llm.Response, error) {
	a := newAssembler("fuzz", func() string { return "stamp" }, onDelta)
	return decodeSSE(context.Background(), bytes.NewReader(in), a)
}

// FuzzStreamDecode checks that no stream makes the decoder panic, that every
// failure is a *provider.Error, and that a decoded response is exactly what
// its deltas said.
func FuzzStreamDecode(f *testing.F) {
	f.Add([]byte(events(chunk(`{"role":"assistant"}`, ""), content("<thi"), content("nk>a</think>b"),
		chunk(`{}`, "stop"), usageChunk, "[DONE]")))
	f.Add([]byte(events(toolFrag(0, "c1", "ls", ""), toolFrag(0, "", "", `{"p":`), toolFrag(1, "c2", "pwd", "{}"),
		toolFrag(0, "", "", `1}`), chunk(`{}`, "tool_calls"))))
	f.Add([]byte(events(chunk(`{"tool_calls":[{"function":{"name":"a"}},{"id":"x","function":{"arguments":{"k":1}}}]}`, ""),
		chunk(`{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]}`, "length"))))
	f.Add([]byte(": ping\r\n\r\nevent: error\r\ndata: {\"message\":\"overloaded\",\"type\":\"overloaded_error\"}\r\n\r\n"))
	f.Add([]byte(`data: {"error":{"message":"m","code":502}}` + "\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}"))
	f.Add([]byte(`{"choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}]}`))
	if files, _ := filepath.Glob(filepath.Join(recordedDir, "*.sse")); len(files) > 0 {
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var text, reasoning strings.Builder
		args := map[int]string{}
		resp, err := decodeBytes(in, func(d llm.Delta) {
			text.WriteString(d.Text)
			reasoning.WriteString(d.Reasoning)
			if tc := d.ToolCall; tc != nil {
				args[tc.Index] += tc.Arguments
			}
		})
		if err != nil {
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *provider.Error", err, err)
			}
			return
		}
		if resp.Text != text.String() || resp.Reasoning != reasoning.String() {
			t.Fatalf("response %q/%q differs from its deltas %q/%q", resp.Text, resp.Reasoning, text.String(), reasoning.String())
		}
		if len(args) != len(resp.ToolCalls) {
			t.Fatalf("%d calls streamed, %d in the response", len(args), len(resp.ToolCalls))
		}
		for i, c := range resp.ToolCalls {
			if c.ID == "" {
				t.Fatalf("call %d without id", i)
			}
			if a := args[i]; c.Arguments != a && !(strings.TrimSpace(a) == "" && c.Arguments == "{}") {
				t.Fatalf("call %d: arguments %q, streamed %q", i, c.Arguments, a)
			}
		}

		// The same bytes as a whole JSON completion must not panic either.
		w := newAssembler("fuzz", func() string { return "stamp" }, nil)
		_ = w.whole(in)
		_ = w.response(true)
	})
}

// benchStream is a realistic ~200-chunk answer: reasoning, a short text,
// two parallel tool calls streamed in small fragments, the finish and usage.
func benchStream() []byte {
	var p []string
	p = append(p, chunk(`{"role":"assistant"}`, ""))
	for i := range 60 {
		p = append(p, chunk(fmt.Sprintf(`{"reasoning_content":" step %d"}`, i), ""))
	}
	for i := range 40 {
		p = append(p, content(fmt.Sprintf(" word%d", i)))
	}
	p = append(p, toolFrag(0, "call_67389dea0febe22c", "glob", ""), toolFrag(1, "call_9b9d9dc30e777faf", "ls", ""))
	for i := range 45 {
		p = append(p, toolFrag(0, "", "", fmt.Sprintf(`"p%d",`, i)), toolFrag(1, "", "", fmt.Sprintf(`"q%d",`, i)))
	}
	p = append(p, chunk(`{}`, "tool_calls"), usageChunk, "[DONE]")
	return []byte(events(p...))
}

func BenchmarkStreamDecode(b *testing.B) {
	in := benchStream()
	if n := bytes.Count(in, []byte("\n\n")); n < 190 || n > 210 {
		b.Fatalf("%d chunks, want about 200", n)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := decodeBytes(in, func(llm.Delta) {})
		if err != nil || len(resp.ToolCalls) != 2 {
			b.Fatalf("%v %+v", err, resp)
		}
	}
}
