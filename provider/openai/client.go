package openai

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// Config configures a Client. Zero values are defaults.
type Config struct {
	// Name is the provider's name in errors and events; default "openai".
	Name string
	// BaseURL is the API root, e.g. "https://api.mistral.ai/v1" or
	// "http://localhost:8080/v1"; requests go to BaseURL + "/chat/completions".
	// A query string (Azure's api-version) is kept. Required, http or https.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>" when set.
	APIKey string
	// APIKeyEnv names the variable APIKey was read from, for the error of
	// a refused authentication while it was unset ("": none named).
	APIKeyEnv string
	// Lang is the language of the messages that say what to do about a
	// failure (the zero value is French, as everywhere in Moteur).
	Lang i18n.Lang
	// Model is the model asked for when a request does not name one.
	// Required.
	Model string
	// HTTPClient sends the requests. Nil means a client with timeouts on
	// dialing, the TLS handshake and the response headers, but none on the
	// whole exchange: a stream may rightly last many minutes, and the engine
	// cancels one that goes silent.
	HTTPClient *http.Client
	// Headers are added to every request, after the default ones, which
	// they may replace (Azure wants "api-key" rather than Authorization).
	Headers map[string]string
	// NoThinking is a JSON object whose fields are added to the body of a
	// request that asks for thinking off (llm.Request.NoThinking, the
	// closing synthesis): servers spell the switch differently, e.g.
	// {"chat_template_kwargs":{"enable_thinking":false}} for Qwen on vLLM
	// or {"thinking":{"type":"disabled"}} for DeepSeek. Nil adds nothing,
	// since OpenAI itself rejects fields it does not know.
	NoThinking json.RawMessage
	// ReasoningEfforts are the reasoning efforts the model accepts, among
	// llm.EffortLevels (nil: DefaultEfforts). A request's
	// llm.Request.ReasoningEffort is adjusted to them (see EffortFor) and
	// sent as reasoning_effort.
	ReasoningEfforts []string
	// Local declares that the server runs on this machine or network and
	// may receive classified content (the engine routes sensitive sessions
	// to such providers).
	Local bool
}

// Client streams chat completions from one server. It is safe for
// concurrent use.
type Client struct {
	name     string
	model    string
	endpoint string
	base     string
	apiKey   string
	keyEnv   string
	lang     i18n.Lang
	http     *http.Client
	headers  map[string]string
	// noThinking holds NoThinking's fields, without their braces.
	noThinking []byte
	local      bool
	// efforts are the reasoning efforts the server accepts, weakest first.
	efforts []string
	// effortRefused: the server answered a request with reasoning_effort
	// by a 400 about the field; it is sent no more.
	effortRefused atomic.Bool
}

var _ provider.Provider = (*Client)(nil)

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: Model is required")
	}
	endpoint, err := endpointURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		name:     cfg.Name,
		model:    cfg.Model,
		endpoint: endpoint,
		base:     cfg.BaseURL,
		apiKey:   cfg.APIKey,
		keyEnv:   cfg.APIKeyEnv,
		lang:     cfg.Lang,
		http:     cfg.HTTPClient,
		headers:  maps.Clone(cfg.Headers),
		local:    cfg.Local,
	}
	if c.name == "" {
		c.name = "openai"
	}
	if c.noThinking, err = objectFields(cfg.NoThinking); err != nil {
		return nil, fmt.Errorf("openai: NoThinking: %w", err)
	}
	if c.efforts, err = supportedEfforts(cfg.ReasoningEfforts); err != nil {
		return nil, fmt.Errorf("openai: ReasoningEfforts: %w", err)
	}
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	return c, nil
}

// endpointURL returns the chat-completions URL under base.
func endpointURL(base string) (string, error) {
	if base == "" {
		return "", errors.New("openai: BaseURL is required")
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("openai: BaseURL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("openai: BaseURL %q is not an http(s) URL", base)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	if u.RawPath != "" {
		u.RawPath = strings.TrimRight(u.RawPath, "/") + "/chat/completions"
	}
	return u.String(), nil
}

// defaultHTTPClient is the process's one client of the providers that
// name none: its connections are pooled across sessions, so that a server
// whose every turn opens a session does not dial (and shake hands with)
// the model's server again at each turn. It bounds each step of getting an
// answer but not the answer itself; the proxy settings of the environment
// are kept. An http.Client is safe for concurrent use.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if ok {
		t = t.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 15 * time.Second
	// A local server may load the model or read a long prompt before it
	// answers; a minute covers that for most, and a custom HTTPClient the
	// rest.
	t.ResponseHeaderTimeout = 60 * time.Second
	// Many sessions stream from one model server at once (moteur serve):
	// keep their connections for the next turns, not net/http's 2 a host.
	t.MaxIdleConnsPerHost = maxIdleConnsPerHost
	t.MaxIdleConns = 4 * maxIdleConnsPerHost
	return &http.Client{Transport: t}
})

// maxIdleConnsPerHost is how many idle connections to a model server are
// kept for the next requests.
const maxIdleConnsPerHost = 256

// Name returns the provider's name.
func (c *Client) Name() string { return c.name }

// Local reports whether the server was declared local (Config.Local).
func (c *Client) Local() bool { return c.local }

// Endpoint is the URL requests are sent to, for the checks made before a
// send.
func (c *Client) Endpoint() string { return c.endpoint }

// Model returns the configured model.
func (c *Client) Model() string { return c.model }

// Stream sends req and streams the answer, calling onDelta for every chunk
// decoded (a zero Delta for a chunk with nothing to show, and for keepalive
// comments). It returns the assembled response; on a failure after the
// answer began, the response holds what came before it. Errors are
// *provider.Error, except the context's own error, returned as it is.
func (c *Client) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	model := req.Model
	if model == "" {
		model = c.model
	}
	resp, err := c.send(ctx, req, model)
	if err != nil {
		return llm.Response{}, err
	}
	defer resp.Body.Close()

	a := newAssembler(c.name, lazyStamp(), onDelta)
	out, err := c.decode(ctx, resp, a)
	if out.Model == "" {
		out.Model = model
	}
	return out, err
}

// send posts the request and returns a 200 answer. A 400 whose error
// names reasoning_effort is sent again, once, without the field, which the
// client then sends no more: the server does not take it, or not the
// levels configured for it.
func (c *Client) send(ctx context.Context, req llm.Request, model string) (*http.Response, error) {
	effort := ""
	if !req.NoThinking {
		effort = c.EffortFor(req.ReasoningEffort)
	}
	resp, err := c.post(ctx, req, model, effort)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusBadRequest && effort != "" && refusesEffort(resp) {
		c.effortRefused.Store(true)
		if resp, err = c.post(ctx, req, model, ""); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		err := statusError(c.origin(), resp)
		if resp.StatusCode == http.StatusNotFound {
			err = c.unknownModel(ctx, model, err)
		}
		return nil, err
	}
	return resp, nil
}

// post sends the body of req, with reasoning_effort effort ("": none), and
// returns the server's answer, whatever its status.
func (c *Client) post(ctx context.Context, req llm.Request, model, effort string) (*http.Response, error) {
	w := buildRequest(req, model)
	w.ReasoningEffort = effort
	body, err := json.Marshal(w)
	if err == nil && req.NoThinking {
		body = addFields(body, c.noThinking)
	}
	if err != nil {
		return nil, &provider.Error{Provider: c.name, Kind: provider.Permanent,
			Message: fmt.Sprintf("encoding request: %v", err), Err: err}
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &provider.Error{Provider: c.name, Kind: provider.Permanent, Message: err.Error(), Err: err}
	}
	c.setHeaders(hreq.Header)
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, transportError(ctx, c.origin(), err)
	}
	return resp, nil
}

func (c *Client) origin() origin {
	return origin{name: c.name, base: c.base, keyEnv: c.keyEnv, keySet: c.apiKey != "", lang: c.lang}
}

func (c *Client) setHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("User-Agent", "moteur")
	if c.apiKey != "" {
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range c.headers {
		h.Set(k, v)
	}
}

// decode reads a 200 answer by what it is: an event stream, or a whole JSON
// completion from a server that ignores stream:true.
func (c *Client) decode(ctx context.Context, resp *http.Response, a *assembler) (llm.Response, error) {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "text/event-stream" {
		return decodeSSE(ctx, resp.Body, a)
	}
	if !mayBeCompletion(mediaType) {
		peek, _ := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
		return llm.Response{}, &provider.Error{Provider: c.name, Kind: provider.Permanent,
			Message: fmt.Sprintf("unexpected content type %q in answer: %q", mediaType, snippet(peek, 200))}
	}
	// A JSON type, or none at all: what the body begins with decides, as
	// some servers mislabel their event streams.
	br := bufio.NewReader(resp.Body)
	if looksLikeJSON(br) {
		return decodeWhole(ctx, br, a)
	}
	return decodeSSE(ctx, br, a)
}

// mayBeCompletion reports media types that an event stream or a JSON
// completion may come under.
func mayBeCompletion(mediaType string) bool {
	switch mediaType {
	case "", "application/json", "text/plain", "application/octet-stream", "application/x-ndjson":
		return true
	}
	return strings.HasSuffix(mediaType, "+json")
}

// looksLikeJSON reports whether the first byte of the body that is not
// white space is "{". An empty body is read as a (cut) stream.
func looksLikeJSON(br *bufio.Reader) bool {
	for n := 1; n <= 512; n++ {
		b, err := br.Peek(n)
		if err != nil || len(b) < n {
			return false
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// lazyStamp returns a random stamp for the ids of tool calls that come
// without one, drawn on first use: most servers send ids.
func lazyStamp() func() string {
	return sync.OnceValue(func() string { return strings.ToLower(rand.Text()[:8]) })
}

// maxListed bounds the model names a 404 lists: enough to spot the right
// one, not a screenful of a gateway's catalogue.
const maxListed = 20

// unknownModel adds to err, the error of a 404 answer to a chat request,
// the models the server lists at GET {base}/models when model is not among
// them: a 404 there most often means a misspelt model name. A server that
// lists nothing, or cannot, leaves err as it is.
func (c *Client) unknownModel(ctx context.Context, model string, err error) error {
	served, lerr := c.listModels(ctx)
	if lerr != nil || len(served) == 0 || slices.Contains(served, model) {
		return err
	}
	if len(served) > maxListed {
		served = append(served[:maxListed:maxListed], "…")
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		pe.Message += ": " + i18n.ModelNotServed(c.lang, model, served)
	}
	return err
}

// listModels asks the server for the ids of its models (the OpenAI
// GET /models answer, which llama.cpp, vLLM, Ollama and LM Studio give
// too), sorted.
func (c *Client) listModels(ctx context.Context) ([]string, error) {
	u, err := serviceURL(c.base, "/models")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req.Header)
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
