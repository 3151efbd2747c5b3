package openaitest

import (
	"encoding/json"
	"fmt"
)

// Chunk is a chat.completion.chunk whose only choice carries delta (a JSON
// object) and finish ("" for null).
func Chunk(delta, finish string) string {
	fin := "null"
	if finish != "" {
		fin = quote(finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-test","object":"chat.completion.chunk","model":"test-model","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, fin)
}

// Text is a chunk of answer text.
func Text(s string) string { return Chunk(`{"content":`+quote(s)+`}`, "") }

// Reasoning is a chunk of reasoning_content.
func Reasoning(s string) string { return Chunk(`{"reasoning_content":`+quote(s)+`}`, "") }

// ToolCall is a tool-call fragment at index; id and name are sent only when
// id is set, as servers do on a call's first fragment.
func ToolCall(index int, id, name, args string) string {
	frag := map[string]any{"index": index, "function": map[string]any{"arguments": args}}
	if id != "" {
		frag["id"], frag["type"] = id, "function"
		frag["function"].(map[string]any)["name"] = name
	}
	b, _ := json.Marshal(map[string]any{"tool_calls": []any{frag}})
	return Chunk(string(b), "")
}

// Usage is the final usage chunk of stream_options.include_usage.
func Usage(prompt, completion int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-test","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		prompt, completion, prompt+completion)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
