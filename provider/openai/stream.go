package openai

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// doneMarker ends an OpenAI stream.
var doneMarker = []byte("[DONE]")

// decodeSSE reads an event stream to its end and returns the assembled
// response.
//
// The end is "data: [DONE]"; what follows it is not read. A stream that
// stops without it is whole if a finish reason came (several servers close
// right after it, or after the usage chunk), cut otherwise. On an error the
// response holds what came before it, usage included when it came.
func decodeSSE(ctx context.Context, body io.Reader, a *assembler) (llm.Response, error) {
	sr := newSSEReader(body)
	for {
		ev, err := sr.next()
		if err != nil {
			return a.end(ctx, err)
		}
		// A server that keeps sending must not outlast a cancellation.
		if err := ctx.Err(); err != nil {
			return a.response(false), err
		}
		done, err := a.event(ev)
		if err != nil {
			return a.response(false), err
		}
		if done {
			return a.response(true), nil
		}
	}
}

// end handles the end of the body before [DONE]: err is io.EOF for a clean
// end, else the read error.
func (a *assembler) end(ctx context.Context, err error) (llm.Response, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return a.response(false), ctxErr
	}
	if a.finished && !errors.Is(err, errEventTooLarge) {
		// The model's output is whole; at most the usage chunk was lost.
		return a.response(true), nil
	}
	if err == io.EOF {
		return a.response(false), cutError(a.name, io.ErrUnexpectedEOF)
	}
	return a.response(false), readError(ctx, a.name, err)
}

// event applies one server-sent event; done reports the end of the stream.
func (a *assembler) event(ev sseEvent) (done bool, err error) {
	data := bytes.TrimSpace(ev.Data)
	switch {
	case ev.Heartbeat || len(data) == 0:
		a.deliver(llm.Delta{})
		return false, nil
	case bytes.Equal(data, doneMarker):
		return true, nil
	case ev.Event == "error":
		// Some servers name the event instead of wrapping the data in an
		// "error" object.
		return false, eventError(a.name, data)
	}
	return false, a.chunk(data)
}

// eventError turns the data of an "error" event into a classified error.
func eventError(name string, data []byte) error {
	se, ok := parseErrorBody(data)
	if !ok || se.Message == "" {
		se.Message = "error in stream: " + snippet(data, maxMessage)
	}
	return &provider.Error{Provider: name, Kind: classify(0, se),
		Type: se.Type, Code: se.Code, Message: se.Message}
}

// decodeWhole decodes a plain JSON completion, the answer of a server that
// ignores stream:true.
func decodeWhole(ctx context.Context, body io.Reader, a *assembler) (llm.Response, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxEventBytes+1))
	if err != nil {
		return llm.Response{}, readError(ctx, a.name, err)
	}
	if len(data) > maxEventBytes {
		return llm.Response{}, readError(ctx, a.name, errEventTooLarge)
	}
	if err := a.whole(data); err != nil {
		return llm.Response{}, err
	}
	return a.response(true), nil
}
