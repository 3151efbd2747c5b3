package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/moteur/moteur/netguard"
)

// userAgent names Moteur to the sites it reads.
const userAgent = "Moteur/1 (web_fetch; +https://github.com/moteur/moteur)"

// fetcher reads one page through the safe client, within the page budget
// and the size cap.
type fetcher struct {
	client   *netguard.Client
	maxBytes int64
	timeout  time.Duration
}

// fetched is a page read.
type fetched struct {
	page
	FinalURL  string
	Truncated bool // the body was cut at the size cap
}

// fetch reads the page at u; the error is a *fetchError.
func (f *fetcher) fetch(parent context.Context, u *url.URL, timeout time.Duration) (fetched, error) {
	if timeout <= 0 || timeout > f.timeout {
		timeout = f.timeout
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(withAsked(ctx, u.String()), http.MethodGet, u.String(), nil)
	if err != nil {
		return fetched{}, failure(codeInvalidURL, false, "invalid URL %q: %v", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return fetched{}, classify(parent, err, timeout)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fetched{}, statusFailure(resp)
	}
	data, truncated, err := netguard.ReadBody(resp.Body, f.maxBytes)
	if err != nil {
		return fetched{}, classify(parent, err, timeout)
	}
	p, err := convert(resp.Request.URL, resp.Header.Get("Content-Type"), data)
	if err != nil {
		var fe *fetchError
		if truncated && errors.As(err, &fe) && fe.Code == codeParse {
			fe.Msg += " (the body was cut at " + humanBytes(len(data)) + ", the size cap)"
		}
		return fetched{}, err
	}
	return fetched{page: p, FinalURL: resp.Request.URL.String(), Truncated: truncated}, nil
}

// statusFailure explains an HTTP error status; 408, 425, 429 and 5xx may
// pass on a later try.
func statusFailure(resp *http.Response) *fetchError {
	c := resp.StatusCode
	retry := c == http.StatusRequestTimeout || c == http.StatusTooEarly || c == http.StatusTooManyRequests || c >= 500
	msg := "HTTP " + resp.Status + " from " + resp.Request.URL.Redacted()
	if ra := resp.Header.Get("Retry-After"); ra != "" && retry {
		msg += " (Retry-After: " + ra + ")"
	}
	return &fetchError{Code: codeHTTPStatus, Retryable: retry, Msg: msg}
}

// classify turns a client error into the failure the model reads.
func classify(parent context.Context, err error, timeout time.Duration) *fetchError {
	var denied *deniedError
	var refused *netguard.RefusedError
	var ne net.Error
	switch {
	case errors.As(err, &denied):
		return failure(codeDenied, false, "%v", denied.err)
	case errors.As(err, &refused):
		return failure(codeRefused, false, "%v", refused)
	case parent.Err() != nil:
		return failure(codeCanceled, true, "the call was canceled")
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return failure(codeTimeout, true, "no complete answer within %s (the page budget)", timeout)
	}
	return failure(codeNetwork, true, "%s", networkReason(err))
}

// networkReason drops the method and URL net/http puts before the cause.
func networkReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.TrimPrefix(err.Error(), "netguard: ")
}
