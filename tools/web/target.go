package web

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// aliasPattern is a wN id as web_search shows it.
var aliasPattern = regexp.MustCompile(`^w[1-9][0-9]{0,6}$`)

// parseTarget reads what the model gave as a page: a wN id of the session
// (resolve answers those) or an http(s) URL. The error is a *fetchError
// with the code the model reads.
func parseTarget(given string, resolve func(alias string) (string, bool)) (*url.URL, error) {
	given = strings.TrimSpace(given)
	if aliasPattern.MatchString(given) {
		u, ok := resolve(given)
		if !ok {
			return nil, failure(codeUnknownID, false, "%s is not a web result id of this session: give a URL or an id web_search returned", given)
		}
		given = u
	}
	if given == "" {
		return nil, failure(codeInvalidURL, false, "empty url: give an http(s) URL or a wN id")
	}
	u, err := url.Parse(given)
	if err != nil {
		return nil, failure(codeInvalidURL, false, "invalid URL %q: %v", given, trimURLError(err))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, failure(codeInvalidURL, false, "%q is not an absolute URL: give it with https://", given)
	default:
		return nil, failure(codeUnsupportedScheme, false, "scheme %q is not supported: only http and https", u.Scheme)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Hostname() == "" {
		return nil, failure(codeInvalidURL, false, "URL %q has no host", given)
	}
	if u.User != nil {
		return nil, failure(codeInvalidURL, false, "URL %q carries credentials: they are not sent", u.Redacted())
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// trimURLError keeps the reason of a url.Parse error without repeating the
// URL.
func trimURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// Codes of a failed or skipped page, with whether trying again may work.
const (
	codeInvalidURL         = "invalid_url"
	codeUnsupportedScheme  = "unsupported_scheme"
	codeUnknownID          = "unknown_id"
	codeRefused            = "refused"
	codeDenied             = "denied"
	codeTimeout            = "timeout"
	codeHTTPStatus         = "http_status"
	codeNetwork            = "network"
	codeUnsupportedContent = "unsupported_content"
	codeEmpty              = "empty"
	codeParse              = "parse_failed"
	codeDuplicate          = "duplicate"
	codeBudget             = "budget_exhausted"
	codeCanceled           = "canceled"
)

// fetchError is why a page was not read, as the model reads it.
type fetchError struct {
	Code      string
	Retryable bool
	Msg       string
}

func (e *fetchError) Error() string { return e.Msg }

func failure(code string, retry bool, format string, args ...any) *fetchError {
	return &fetchError{Code: code, Retryable: retry, Msg: fmt.Sprintf(format, args...)}
}

// codeOffsetPastEnd is an offset beyond a page's text.
const codeOffsetPastEnd = "offset_past_end"
