package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider"
)

// maxErrorBody bounds how much of an error answer is read: the message is
// in the first few hundred bytes, and an error page can be large.
const maxErrorBody = 64 << 10

// maxMessage bounds a message taken from an error body that is not JSON (an
// HTML page from a proxy): enough to recognise it, not the whole page.
const maxMessage = 512

// serverError is what a server said about a failure.
type serverError struct {
	Message, Type, Code string
}

// origin is what an error needs to say where it came from and what to do:
// the provider's name, the base URL it was configured with, the variable
// its key comes from and whether that variable was set, and the language
// of the person who reads it.
type origin struct {
	name, base string
	// keyEnv names the variable of the key ("": none named); keySet
	// reports that the key is not empty.
	keyEnv string
	keySet bool
	lang   i18n.Lang
}

// statusError turns an HTTP answer other than 200 into a classified error.
// A refused authentication with no key, although the configuration named
// the variable to take it from, says that the variable is not set.
func statusError(o origin, resp *http.Response) error {
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	se, ok := parseErrorBody(body)
	if !ok || se.Message == "" {
		se.Message = fallbackMessage(body, resp.StatusCode)
	}
	if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && o.keyEnv != "" && !o.keySet {
		se.Message += ": " + i18n.KeyVarUnset(o.lang, o.keyEnv)
	}
	return &provider.Error{
		Provider: o.name,
		Kind:     classify(resp.StatusCode, se),
		Status:   resp.StatusCode,
		Type:     se.Type,
		Code:     se.Code,
		Message:  se.Message,
		Err:      readErr,
	}
}

// isErrorValue reports whether the "error" field of a chunk holds an error:
// an object or a string with something in it. A null, {} or "" is none.
func isErrorValue(raw json.RawMessage) bool {
	switch firstByte(raw) {
	case '{':
		var o map[string]json.RawMessage
		return json.Unmarshal(raw, &o) != nil || len(o) > 0
	case '"':
		return text(raw) != ""
	}
	return false
}

// streamError turns an error object sent inside a 200 answer (a stream
// chunk or a whole JSON body) into a classified error.
func streamError(name string, raw json.RawMessage) error {
	body := make([]byte, 0, len(raw)+10)
	body = append(append(append(body, `{"error":`...), raw...), '}')
	se, _ := parseErrorBody(body)
	if se.Message == "" {
		se.Message = "error in stream: " + snippet(raw, maxMessage)
	}
	return &provider.Error{
		Provider: name,
		Kind:     classify(0, se),
		Type:     se.Type,
		Code:     se.Code,
		Message:  se.Message,
	}
}

// wireErrorBody covers the error shapes of OpenAI-compatible servers:
//
//	{"error":{"message":"…","type":"…","code":"…"}}   OpenAI, llama.cpp, DeepSeek
//	{"error":"…"}                                     Ollama
//	{"object":"error","message":"…","type":"…"}       vLLM, Mistral
//	{"detail":"…"}                                    FastAPI-based servers
type wireErrorBody struct {
	Error   json.RawMessage `json:"error"`
	Message json.RawMessage `json:"message"`
	Detail  json.RawMessage `json:"detail"`
	Type    json.RawMessage `json:"type"`
	Code    json.RawMessage `json:"code"`
}

type wireErrorObject struct {
	Message json.RawMessage `json:"message"`
	Type    json.RawMessage `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// parseErrorBody reads a server's error body; ok is false when it is not
// one of the known JSON shapes.
func parseErrorBody(body []byte) (se serverError, ok bool) {
	var w wireErrorBody
	if json.Unmarshal(body, &w) != nil {
		return serverError{}, false
	}
	switch firstByte(w.Error) {
	case '{':
		var o wireErrorObject
		if json.Unmarshal(w.Error, &o) == nil {
			return serverError{Message: text(o.Message), Type: text(o.Type), Code: text(o.Code)}, true
		}
	case '"':
		return serverError{Message: text(w.Error), Type: text(w.Type), Code: text(w.Code)}, true
	}
	se = serverError{Message: text(w.Message), Type: text(w.Type), Code: text(w.Code)}
	if se.Message == "" {
		se.Message = text(w.Detail)
	}
	return se, se.Message != "" || se.Type != "" || se.Code != ""
}

// text renders a JSON value as text: a string as itself, anything else (a
// numeric code, a list of validation details) as its JSON.
func text(raw json.RawMessage) string {
	switch firstByte(raw) {
	case 0, 'n':
		return ""
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.TrimSpace(s)
		}
	}
	return string(bytes.TrimSpace(raw))
}

// fallbackMessage is the body's own text when it had no message, else the
// status text.
func fallbackMessage(body []byte, status int) string {
	if msg := strings.TrimSpace(strings.ToValidUTF8(snippet(body, maxMessage), "")); msg != "" {
		return msg
	}
	if msg := http.StatusText(status); msg != "" {
		return msg
	}
	return "HTTP " + strconv.Itoa(status)
}

// classify decides what a failure calls for. It goes by the server's error
// type and code and by the HTTP status, never by numbers found in the
// message. The one exception is context overflow: vLLM, Mistral and Ollama
// say it only in prose on a 400, so a few phrases are recognised there.
func classify(status int, se serverError) provider.Kind {
	typeCode := strings.ToLower(se.Type + " " + se.Code)
	switch {
	case containsAny(typeCode, overflowCodes):
		return provider.ContextOverflow
	case containsAny(typeCode, permanentCodes):
		return provider.Permanent
	case containsAny(typeCode, transientCodes):
		return provider.Transient
	case proseMayTell(status) && containsAny(strings.ToLower(se.Message), overflowPhrases):
		return provider.ContextOverflow
	case status != 0:
		return provider.KindForStatus(status)
	}
	// In a stream, vLLM and OpenRouter put the HTTP status the failure
	// would have had in a numeric code.
	if code, err := strconv.Atoi(se.Code); err == nil && code >= 400 && code <= 599 {
		return provider.KindForStatus(code)
	}
	return provider.Permanent
}

// proseMayTell reports whether a message may be read for context overflow:
// client errors and in-stream errors, but not a 429, whose "too many
// tokens" is about a rate.
func proseMayTell(status int) bool {
	return status == 0 || (status >= 400 && status < 500 && status != http.StatusTooManyRequests)
}

var (
	overflowCodes = []string{"context_length_exceeded", "exceed_context_size"}
	// insufficient_quota comes with a 429, yet waiting does not pay the bill.
	permanentCodes = []string{"insufficient_quota"}
	transientCodes = []string{"overloaded", "server_error", "rate_limit", "service_unavailable", "timeout"}
	// overflowPhrases are lower case.
	overflowPhrases = []string{
		"maximum context length",
		"max context length",
		"context length exceeded",
		"exceeds the context",
		"exceed the context",
		"context window",
		"context size",
		"too many tokens",
		"prompt is too long",
		"prompt too long",
		"input is too long",
		"reduce the length",
	}
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// transportError classifies a failure to get an answer or to read it. The
// context's own error is returned as it is, so that callers can tell their
// cancellation from the server's failure. The message says the URL once
// (net/http's own error repeats it after the method), and a server that
// could not be reached is named with the question to ask.
func transportError(ctx context.Context, o origin, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	kind := provider.Transient
	if permanentTransport(err) {
		kind = provider.Permanent
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	if cause, ok := unreachable(err); ok {
		msg = i18n.ServerUnreachable(o.lang, o.base, cause)
	}
	return &provider.Error{Provider: o.name, Kind: kind, Message: msg, Err: err}
}

// unreachable reports a failure to connect at all — nothing listens on the
// port, the host name does not resolve, no route — with its cause in a
// few words.
func unreachable(err error) (cause string, ok bool) {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return "no such host " + dns.Name, true
		}
		return dns.Error(), true
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		return "", false
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host", true
	case op.Timeout():
		return "connection timed out", true
	}
	return op.Err.Error(), true
}

// permanentTransport reports failures that a retry will not mend: a
// certificate that does not verify. Everything else (refused, reset, timed
// out, a name that did not resolve while the network came back) is worth
// another try; a misspelt host costs a few retries, no more.
func permanentTransport(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuth) ||
		errors.As(err, &hostErr) || errors.As(err, &invalid)
}

// cutError is the error of a stream that ended before its end.
func cutError(name string, err error) error {
	return &provider.Error{Provider: name, Kind: provider.Transient,
		Message: "stream ended before completion", Err: err}
}

// readError classifies a failure while reading the body of a 200.
func readError(ctx context.Context, name string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, errEventTooLarge) {
		return &provider.Error{Provider: name, Kind: provider.Permanent, Message: err.Error(), Err: err}
	}
	return &provider.Error{Provider: name, Kind: provider.Transient,
		Message: fmt.Sprintf("stream broken: %v", err), Err: err}
}
