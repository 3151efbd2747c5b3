package oauth

import (
	"fmt"
	"net/http"
)

// checkedTransport runs the outbound check on every request before handing
// it to base, so that a refused URL gets no connection. It sits below
// http.Client, so each redirect hop is checked too.
type checkedTransport struct {
	check func(string) error
	base  http.RoundTripper
}

func (t *checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkURL(t.check, req.URL.String()); err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // RoundTrip owns the body, even on error
		}
		return nil, err
	}
	return t.base.RoundTrip(req)
}

// checkURL applies check to u, failing closed when there is no check.
func checkURL(check func(string) error, u string) error {
	if check == nil {
		return fmt.Errorf("%w: %s: no outbound check configured", ErrRefused, redactURL(u))
	}
	if err := check(u); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrRefused, redactURL(u), err)
	}
	return nil
}

func baseTransport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		return http.DefaultTransport
	}
	return rt
}
