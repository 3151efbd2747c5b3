package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/moteur/moteur/event"
)

// completion answers with one chat.completion once the turn has ended.
// The turn goes on if the client leaves first; its answer is in the
// session.
func (s *Server) completion(w http.ResponseWriter, r *http.Request, d doorRequest) {
	lt, events, err := s.startTurn(r.Context(), d.turn)
	if err != nil {
		writeOpenAIError(w, err)
		return
	}
	var rep reply
	if !collect(r.Context(), &rep, events) {
		return // the client left; the turn goes on
	}
	if err := turnError(lt, &rep); err != nil {
		writeOpenAIError(w, err)
		return
	}
	finish := rep.finishReason()
	answer := rep.done.Answer
	w.Header().Set(SessionHeader, d.turn.SessionID)
	writeJSON(w, http.StatusOK, completionJSON{ID: d.id, Object: "chat.completion", Created: d.created, Model: d.model,
		Choices: []choiceJSON{{Message: &messageJSON{Role: "assistant", Content: &answer}, FinishReason: &finish}},
		Usage:   rep.usage(), replyExtras: rep.extras(d.turn.SessionID)})
}

// collect feeds rep the turn's events until the turn ends (true) or ctx
// does (false), even while no event comes (a call waiting for an
// approval).
func collect(ctx context.Context, rep *reply, events <-chan event.Event) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case ev, ok := <-events:
			if !ok {
				return ctx.Err() == nil
			}
			rep.feed(ev)
		}
	}
}

// turnError is the error of a turn that gave no answer: one that ended
// without TurnCompleted (its channel closed on the turn's error), or on an
// error of the model or the engine.
func turnError(lt *liveTurn, rep *reply) error {
	if rep.done == nil {
		err := lt.Wait()
		if err == nil {
			err = fmt.Errorf("the turn ended without TurnCompleted")
		}
		return turnFailure(err)
	}
	if rep.failed() {
		return apiErrorf(http.StatusBadGateway, CodeTurnFailed, "%s", rep.failureMessage())
	}
	return nil
}

// streamCompletion answers with chat.completion.chunk events: the role
// first, then the answer's text as it comes, then a chunk with the
// finish_reason and the door's extras, the usage when the request asked
// for it (stream_options.include_usage), and `data: [DONE]`. A turn that
// fails without an answer ends the stream with `data: {"error": …}`, which
// OpenAI clients raise as an error.
func (s *Server) streamCompletion(w http.ResponseWriter, r *http.Request, d doorRequest, withUsage bool) {
	sse, err := newSSEWriter(w)
	if err != nil {
		writeOpenAIError(w, err)
		return
	}
	lt, events, err := s.startTurn(r.Context(), d.turn)
	if err != nil {
		writeOpenAIError(w, err)
		return
	}
	w.Header().Set(SessionHeader, d.turn.SessionID)
	if sse.start() != nil {
		return
	}
	cs := chunkStream{sse: sse, d: d}
	role := ""
	if cs.delta(&messageJSON{Role: "assistant", Content: &role}, replyExtras{SessionID: d.turn.SessionID}) != nil {
		return
	}
	var rep reply
	if !s.followCompletion(r.Context(), &cs, &rep, events, d.turn.OnRequest == nil) {
		return
	}
	if err := turnError(lt, &rep); err != nil {
		_ = cs.error(asAPIError(err))
		return
	}
	finish := rep.finishReason()
	if cs.write(completionJSON{Choices: []choiceJSON{{Delta: &messageJSON{}, FinishReason: &finish}},
		replyExtras: rep.extras(d.turn.SessionID)}) != nil {
		return
	}
	if withUsage && cs.write(completionJSON{Choices: []choiceJSON{}, Usage: rep.usage()}) != nil {
		return
	}
	_ = cs.raw("[DONE]")
}

// followCompletion sends the text of the turn's events until the turn
// ends (true) or the client leaves or a write fails (false). A call that
// waits for an approval is told of in a chunk of its own when the key may
// wait (showPrompts).
func (s *Server) followCompletion(ctx context.Context, cs *chunkStream, rep *reply, events <-chan event.Event, showPrompts bool) bool {
	var tick <-chan time.Time
	if ka := s.keepAlive(); ka > 0 {
		t := time.NewTicker(ka)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case ev, ok := <-events:
			if !ok {
				return ctx.Err() == nil
			}
			text, prompt := rep.feed(ev)
			if text != "" && cs.delta(&messageJSON{Content: &text}, replyExtras{}) != nil {
				return false
			}
			if prompt != nil && showPrompts &&
				cs.write(completionJSON{Choices: []choiceJSON{}, replyExtras: replyExtras{Prompt: prompt}}) != nil {
				return false
			}
		case <-tick:
			if cs.sse.comment("keep-alive") != nil {
				return false
			}
		}
	}
}

// chunkStream writes the chunks of one completion: `data: JSON` events
// without `event:` or `id:`, as OpenAI's stream.
type chunkStream struct {
	sse *sseWriter
	d   doorRequest
}

func (c *chunkStream) delta(m *messageJSON, x replyExtras) error {
	return c.write(completionJSON{Choices: []choiceJSON{{Delta: m}}, replyExtras: x})
}

// write sends a chunk, labelled with the completion's id, time and model.
func (c *chunkStream) write(ch completionJSON) error {
	ch.ID, ch.Object, ch.Created, ch.Model = c.d.id, "chat.completion.chunk", c.d.created, c.d.model
	return c.json(ch)
}

func (c *chunkStream) error(ae *Error) error {
	return c.json(openAIErrorBody{Error: openAIErrorDetail{Message: ae.Message, Type: openAIErrorType(ae.Status), Code: ae.Code}})
}

func (c *chunkStream) json(v any) error {
	c.sse.js.Reset()
	if err := c.sse.enc.Encode(v); err != nil {
		return fmt.Errorf("server: encode chunk: %w", err)
	}
	return c.raw(string(bytes.TrimSuffix(c.sse.js.Bytes(), []byte{'\n'})))
}

func (c *chunkStream) raw(data string) error {
	c.sse.buf.Reset()
	writeData(&c.sse.buf, []byte(data))
	c.sse.buf.WriteByte('\n')
	return c.sse.send()
}

// openAIErrorBody is an error in OpenAI's shape: the API's code and
// message, and OpenAI's type.
type openAIErrorBody struct {
	Error openAIErrorDetail `json:"error"`
}

type openAIErrorDetail struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
}

// writeOpenAIError sends err as the API does, with OpenAI's error type
// beside its code. OpenAI clients retry 409 and 5xx responses unless told
// not to: a turn that ran and failed is recorded, and asking again would
// run another, so only a busy session or a draining server says retry.
func writeOpenAIError(w http.ResponseWriter, err error) {
	ae := asAPIError(err)
	h := w.Header()
	if ae.Code == CodeBusy || ae.Code == CodeShuttingDown {
		h.Set("X-Should-Retry", "true")
	} else {
		h.Set("X-Should-Retry", "false")
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(ae.Status)
	_ = json.NewEncoder(w).Encode(openAIErrorBody{Error: openAIErrorDetail{Message: ae.Message, Type: openAIErrorType(ae.Status), Code: ae.Code}})
}

// openAIErrorType is OpenAI's error type for a status.
func openAIErrorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusConflict:
		return "conflict_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}
