package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider"
)

// This file holds what the embeddings and rerank clients share: one JSON
// POST to one endpoint, retried on transient failures. The chat client does
// not use it: a stream is not retried here, the engine decides.

const (
	// defaultRetries is the number of retries when the config says 0.
	defaultRetries = 2
	// firstBackoff is the wait before the first retry; it doubles after.
	firstBackoff = time.Second
	// maxRetryAfter is the longest wait a server's Retry-After may impose
	// here. A longer one is the caller's business: the error is returned.
	maxRetryAfter = 30 * time.Second
	// requestTimeout bounds a whole exchange with the default HTTP client:
	// unlike a chat stream, an embeddings or rerank answer comes at once.
	requestTimeout = 60 * time.Second
	// maxAnswer bounds the body of an answer read into memory: 64 texts of
	// 4096 dimensions written as JSON take about 6 MiB.
	maxAnswer = 256 << 20
)

// postConfig is the part of EmbedConfig and RerankConfig that poster uses.
type postConfig struct {
	baseURL, path, apiKey string
	maxRetries            int
	httpClient            *http.Client
	headers               map[string]string
	sleep                 func(ctx context.Context, d time.Duration) error
	// lang is the language of the messages that say what to do about a
	// failure.
	lang i18n.Lang
}

// poster sends JSON requests to one endpoint and retries transient
// failures with a backoff. It is safe for concurrent use.
type poster struct {
	name     string
	endpoint string
	base     string
	lang     i18n.Lang
	apiKey   string
	http     *http.Client
	headers  map[string]string
	retries  int
	sleep    func(ctx context.Context, d time.Duration) error
}

func newPoster(cfg postConfig) (*poster, error) {
	endpoint, err := serviceURL(cfg.baseURL, cfg.path)
	if err != nil {
		return nil, err
	}
	p := &poster{
		name:     "openai",
		endpoint: endpoint,
		base:     cfg.baseURL,
		lang:     cfg.lang,
		apiKey:   cfg.apiKey,
		http:     cfg.httpClient,
		headers:  maps.Clone(cfg.headers),
		retries:  cfg.maxRetries,
		sleep:    cfg.sleep,
	}
	switch {
	case p.retries == 0:
		p.retries = defaultRetries
	case p.retries < 0:
		p.retries = 0
	}
	if p.http == nil {
		p.http = defaultHTTPClient()
		p.http.Timeout = requestTimeout
	}
	if p.sleep == nil {
		p.sleep = sleepContext
	}
	return p, nil
}

// serviceURL returns the URL of the service at path (e.g. "/embeddings")
// under base. It goes through endpointURL so that the two share one set of
// rules (http or https, a host, the query string kept), then swaps the
// chat-completions path for path.
func serviceURL(base, path string) (string, error) {
	chat, err := endpointURL(base)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(chat)
	if err != nil {
		return "", fmt.Errorf("openai: BaseURL: %w", err)
	}
	const chatPath = "/chat/completions"
	u.Path = strings.TrimSuffix(u.Path, chatPath) + path
	if u.RawPath != "" {
		u.RawPath = strings.TrimSuffix(u.RawPath, chatPath) + path
	}
	return u.String(), nil
}

// sleepContext waits for d or until ctx ends, whichever comes first.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post sends payload as JSON and hands the body of a 200 answer to decode.
// Failures the server or the network may mend (provider.Transient) are
// retried, decode's included; the others are returned at once. The
// context's own error is returned as it is.
func (p *poster) post(ctx context.Context, payload any, decode func(body []byte) error) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return &provider.Error{Provider: p.name, Kind: provider.Permanent,
			Message: fmt.Sprintf("encoding request: %v", err), Err: err}
	}
	for attempt := 0; ; attempt++ {
		retryAfter, err := p.once(ctx, body, decode)
		if err == nil {
			return nil
		}
		wait, err := p.backoff(ctx, attempt, retryAfter, err)
		if err != nil {
			return err
		}
		if err := p.sleep(ctx, wait); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return fmt.Errorf("waiting %v to retry: %w", wait, err)
		}
	}
}

// backoff decides whether the failure err of the attempt-th try (from 0)
// is retried and after how long; when it is not, it returns the error to
// report.
func (p *poster) backoff(ctx context.Context, attempt int, retryAfter time.Duration, err error) (time.Duration, error) {
	var pe *provider.Error
	if ctx.Err() != nil || !errors.As(err, &pe) || pe.Kind != provider.Transient {
		return 0, err
	}
	if attempt >= p.retries {
		if attempt == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("after %d attempts: %w", attempt+1, err)
	}
	if retryAfter > maxRetryAfter {
		return 0, fmt.Errorf("server asks to retry after %v, more than the %v waited here: %w",
			retryAfter, maxRetryAfter, err)
	}
	if retryAfter >= 0 {
		return retryAfter, nil
	}
	if attempt >= 5 { // 32 s and more: the cap, before the shift overflows
		return maxRetryAfter, nil
	}
	return min(firstBackoff<<attempt, maxRetryAfter), nil
}

// once makes one attempt. retryAfter is the wait the server asked for
// with a failure, -1 when it asked for none.
func (p *poster) once(ctx context.Context, body []byte, decode func([]byte) error) (retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return -1, &provider.Error{Provider: p.name, Kind: provider.Permanent, Message: err.Error(), Err: err}
	}
	p.setHeaders(req.Header)
	resp, err := p.http.Do(req)
	if err != nil {
		return -1, transportError(ctx, p.origin(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		return parseRetryAfter(resp.Header.Get("Retry-After")), statusError(p.origin(), resp)
	}
	data, err := p.read(ctx, resp.Body)
	if err != nil {
		return -1, err
	}
	return -1, decode(data)
}

func (p *poster) origin() origin {
	return origin{name: p.name, base: p.base, keySet: p.apiKey != "", lang: p.lang}
}

func (p *poster) setHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "moteur")
	if p.apiKey != "" {
		h.Set("Authorization", "Bearer "+p.apiKey)
	}
	for k, v := range p.headers {
		h.Set(k, v)
	}
}

// read reads the body of a 200 answer. A body cut short (a connection
// reset, an EOF before Content-Length) is transient: the next try may get
// it whole.
func (p *poster) read(ctx context.Context, body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxAnswer+1))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, &provider.Error{Provider: p.name, Kind: provider.Transient,
			Message: fmt.Sprintf("answer cut short: %v", err), Err: err}
	}
	if len(data) > maxAnswer {
		return nil, p.badAnswer(nil, "answer larger than %d MiB", maxAnswer>>20)
	}
	return data, nil
}

// badAnswer is the permanent error of a 200 answer that does not say what
// it should: asking again would get the same.
func (p *poster) badAnswer(err error, format string, args ...any) error {
	return &provider.Error{Provider: p.name, Kind: provider.Permanent,
		Message: fmt.Sprintf(format, args...), Err: err}
}

// answerError is the "error" field some servers (and proxies) put in a 200
// answer; the wire shapes of answers embed it.
type answerError struct {
	Error json.RawMessage `json:"error"`
}

func (a *answerError) inBody() json.RawMessage { return a.Error }

// decodeAnswer unmarshals a 200 answer into v. An error object in the body
// is classified like an error status; a body that is not the JSON expected
// is a permanent failure.
func (p *poster) decodeAnswer(body []byte, v interface{ inBody() json.RawMessage }) error {
	if err := json.Unmarshal(body, v); err != nil {
		return p.badAnswer(err, "decoding answer: %v: %q", err, snippet(body, 200))
	}
	if raw := v.inBody(); isErrorValue(raw) {
		return streamError(p.name, raw)
	}
	return nil
}

// parseRetryAfter reads a Retry-After header given in seconds; -1 when it
// is absent or in another form (an HTTP date is rare from API servers and
// would need a clock here).
func parseRetryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return -1
	}
	// A day is as good as forever here, and keeps a huge value from
	// overflowing a Duration.
	n = min(n, 24*60*60)
	return time.Duration(n) * time.Second
}
