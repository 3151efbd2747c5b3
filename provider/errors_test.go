package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestKindOf(t *testing.T) {
	overflow := &Error{Provider: "p", Kind: ContextOverflow, Status: 400, Message: "too long"}
	for _, tc := range []struct {
		err  error
		want Kind
	}{
		{&Error{Kind: Transient, Status: 429}, Transient},
		{fmt.Errorf("round 2: %w", &Error{Kind: Transient}), Transient},
		{overflow, ContextOverflow},
		{&Error{Kind: Permanent, Status: 401}, Permanent},
		{context.Canceled, Permanent},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), Transient},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, Transient},
		{errors.New("something else"), Permanent},
	} {
		if got := KindOf(tc.err); got != tc.want {
			t.Errorf("KindOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	if !IsContextOverflow(overflow) || IsTransient(nil) || IsContextOverflow(nil) {
		t.Error("Is helpers disagree with KindOf")
	}
}

func TestKindForStatus(t *testing.T) {
	for status, want := range map[int]Kind{
		400: Permanent, 401: Permanent, 403: Permanent, 404: Permanent, 422: Permanent,
		408: Transient, 409: Transient, 425: Transient, 429: Transient,
		500: Transient, 502: Transient, 503: Transient, 504: Transient, 529: Transient,
	} {
		if got := KindForStatus(status); got != want {
			t.Errorf("KindForStatus(%d) = %v, want %v", status, got, want)
		}
	}
}

func TestErrorKeepsServerMessage(t *testing.T) {
	cause := errors.New("dial refused")
	e := &Error{Provider: "mistral", Kind: Transient, Status: 503, Message: "Service overloaded"}
	if got := e.Error(); got != "mistral: HTTP 503: Service overloaded" {
		t.Errorf("Error() = %q", got)
	}
	e = &Error{Provider: "local", Kind: Transient, Err: cause}
	if !errors.Is(e, cause) || !strings.Contains(e.Error(), "dial refused") {
		t.Errorf("Error() = %q, unwrap lost", e.Error())
	}
}
