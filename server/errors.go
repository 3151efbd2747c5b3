package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/moteur/moteur/engine"
)

// Error is an API error: the HTTP status it is sent with and the code and
// message of its JSON body. Codes are part of the API's contract; messages
// are for people and say what was wrong and why.
type Error struct {
	Status  int
	Code    string
	Message string
	// Err is the cause, if any (for errors.Is/As); it is never sent.
	Err error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// apiErrorf builds an *Error with a formatted message.
func apiErrorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error codes sent in {"error": {"code": …}}.
const (
	CodeBadRequest       = "bad_request"
	CodeBadAfter         = "bad_after"
	CodeMalformedJSON    = "malformed_json"
	CodeEmptyBody        = "empty_body"
	CodeUnknownField     = "unknown_field"
	CodeInvalidField     = "invalid_field"
	CodeTrailingData     = "trailing_data"
	CodeBodyTooLarge     = "body_too_large"
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeUnknownSession   = "unknown_session"
	CodeAfterBeyondEnd   = "after_beyond_end"
	CodeInternal         = "internal"
)

// errorBody is the JSON of an error response.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// asAPIError maps err to the error a client is sent: an *Error as it is,
// the engine's sentinels to their statuses, anything else to a 500 whose
// message says nothing of the cause (it may name files or hosts of the
// server: fail closed).
func asAPIError(err error) *Error {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, engine.ErrUnknownSession):
		return &Error{Status: http.StatusNotFound, Code: CodeUnknownSession, Message: err.Error(), Err: err}
	case errors.Is(err, engine.ErrFollowAfterEnd):
		// The request is well formed but names a seq the session has not
		// reached: a conflict with the session's state, not a syntax error.
		return &Error{Status: http.StatusConflict, Code: CodeAfterBeyondEnd, Message: err.Error(), Err: err}
	default:
		return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error", Err: err}
	}
}

// WriteError sends err as a JSON error response. It must be called before
// anything else is written to w.
func WriteError(w http.ResponseWriter, err error) {
	ae := asAPIError(err)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(ae.Status)
	// The default HTML escaping stays on: a message may quote client input
	// and a browser may show it.
	_ = json.NewEncoder(w).Encode(errorBody{Error: errorDetail{Code: ae.Code, Message: ae.Message}})
}
