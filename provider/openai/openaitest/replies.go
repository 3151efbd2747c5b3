package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Done is the sentinel that ends a stream.
const Done = "[DONE]"

// Stream replies with one `data:` event per payload, flushed one by one,
// exactly as given: add Done to end the stream properly.
func Stream(payloads ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvents(w, payloads)
	}
}

func writeEvents(w http.ResponseWriter, payloads []string) {
	for _, p := range payloads {
		fmt.Fprintf(w, "data: %s\n\n", p)
		w.(http.Flusher).Flush()
	}
}

// Answer streams a plain text answer: role, text, finish "stop", usage,
// Done.
func Answer(text string) http.HandlerFunc {
	return Stream(Chunk(`{"role":"assistant"}`, ""), Text(text), Chunk(`{}`, "stop"), Usage(10, 3), Done)
}

// Calls streams tool calls, each as an opening fragment with the id and
// name and a second fragment with the rest of the arguments, then finish
// "tool_calls" and Done. Calls are given as id, name, arguments triples.
func Calls(triples ...string) http.HandlerFunc {
	var payloads []string
	for i := 0; i+2 < len(triples); i += 3 {
		args := triples[i+2]
		half := len(args) / 2
		payloads = append(payloads,
			ToolCall(i/3, triples[i], triples[i+1], args[:half]),
			ToolCall(i/3, "", "", args[half:]))
	}
	payloads = append(payloads, Chunk(`{}`, "tool_calls"), Done)
	return Stream(payloads...)
}

// Status replies with an HTTP error in the OpenAI shape.
func Status(code int, errType, message string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": message, "type": errType}})
		_, _ = w.Write(b)
	}
}

// Cut streams payloads, then drops the connection without ending the
// response, as a crashing server or a broken proxy does.
func Cut(payloads ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvents(w, payloads)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

// Stall streams payloads, then sends nothing more until the client gives
// up.
func Stall(payloads ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvents(w, payloads)
		<-r.Context().Done()
	}
}

// Raw replies with body as it is, under contentType.
func Raw(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body)
	}
}
