// Package server owns Moteur's HTTP side, served by `moteur serve`: the JSON
// API under /api/v1 (sessions, agent-chat and knowledge-chat, session
// events, approvals, agents, knowledge bases, keys), its Server-Sent Events
// streams, the web page (embedded static files) and the OpenAI-compatible
// door (/v1/chat/completions, /v1/models). It holds no state that is not in
// the store: every turn runs through the same engine, store, audit log and
// policy as the CLI.
//
// This first slice holds the self-contained pieces the routes are built on:
//
//   - sse.go: the SSE framing of events (`id:` for persisted events only,
//     `event:`, `data:` with the event's JSON exactly as `moteur run --json`
//     prints it), keep-alive comments, and the resume position of a request
//     (Last-Event-ID or ?after=SEQ);
//   - events.go: GET /api/v1/sessions/{id}/events (SessionEvents), which
//     streams a session's events through a Subscriber;
//   - errors.go: JSON errors, {"error": {"code": …, "message": …}}, and the
//     mapping of the engine's sentinel errors to statuses;
//   - decode.go: strict decoding of request bodies (size limit, JSON only,
//     unknown fields and trailing data refused).
//
// Routing, authentication, the chat routes, approvals, the page and the
// OpenAI door are not here yet.
//
// Concurrency: a SessionEvents and a Decoder are immutable once built and
// serve any number of requests at once. One request's SSE writer is used by
// that request's goroutine alone. A stream never blocks the engine: it reads
// from the Subscriber's channel at the client's pace, and the engine's
// followers are the ones that bound what a slow client costs.
package server
