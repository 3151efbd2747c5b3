package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/provider"
)

// postServer answers the n-th request with replies[n] and keeps every
// request. It serves the embeddings and rerank tests.
type postServer struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	replies  []http.HandlerFunc
	requests []postRequest
}

type postRequest struct {
	Path   string
	Header http.Header
	Body   []byte
}

func newPostServer(t *testing.T, replies ...http.HandlerFunc) *postServer {
	t.Helper()
	s := &postServer{t: t, replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *postServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, postRequest{Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
	var reply http.HandlerFunc
	if n < len(s.replies) {
		reply = s.replies[n]
	}
	s.mu.Unlock()
	if reply == nil {
		s.t.Errorf("unexpected request %d", n+1)
		http.Error(w, `{"error":{"message":"no more scripted replies"}}`, http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	reply(w, r)
}

func (s *postServer) baseURL() string { return s.srv.URL + "/v1" }

func (s *postServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *postServer) request(i int) postRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

// sleeper records the waits asked of the Sleep seam, without waiting.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
	// hook runs on each wait, before the context is checked.
	hook func()
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	if s.hook != nil {
		s.hook()
	}
	return ctx.Err()
}

func (s *sleeper) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waits)
}

// vectorOf is the vector the test server gives text "t<i>": [i, -i, 0.5].
func vectorOf(i int) []float32 { return []float32{float32(i), float32(-i), 0.5} }

// embedReply embeds each input "t<i>" as vectorOf(i) and lists the items in
// reverse order, indexes kept, as a server is free to.
func embedReply(w http.ResponseWriter, r *http.Request) {
	var req wireEmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	data := make([]map[string]any, 0, len(req.Input))
	for i := len(req.Input) - 1; i >= 0; i-- {
		n, _ := strconv.Atoi(strings.TrimPrefix(req.Input[i], "t"))
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vectorOf(n)})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// raw replies with status and body as they are.
func raw(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func failWith(status int) http.HandlerFunc {
	return raw(status, fmt.Sprintf(`{"error":{"message":"failure %d"}}`, status))
}

// cutBody announces a 200 of 1000 bytes, sends a few and hangs up.
func cutBody(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprint(bw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
		fmt.Fprint(bw, `{"data":[{"index":0,"embedding":[0.1,`)
		_ = bw.Flush()
	}
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + strconv.Itoa(i)
	}
	return out
}

func newEmbedder(t *testing.T, s *postServer, sl *sleeper, mod func(*EmbedConfig)) *Embedder {
	t.Helper()
	cfg := EmbedConfig{BaseURL: s.baseURL(), APIKey: "sk-test", Model: "emb", Sleep: sl.sleep}
	if mod != nil {
		mod(&cfg)
	}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// embed embeds n texts "t0"… against replies.
func embed(t *testing.T, n int, mod func(*EmbedConfig), replies ...http.HandlerFunc) ([][]float32, *postServer, *sleeper, error) {
	t.Helper()
	s := newPostServer(t, replies...)
	sl := &sleeper{}
	vecs, err := newEmbedder(t, s, sl, mod).Embed(context.Background(), texts(n))
	return vecs, s, sl, err
}

func wantWaits(t *testing.T, sl *sleeper, want ...time.Duration) {
	t.Helper()
	if got := sl.got(); !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
}

func wantRequests(t *testing.T, s *postServer, n int) {
	t.Helper()
	if got := s.count(); got != n {
		t.Errorf("%d requests, want %d", got, n)
	}
}

func TestNewEmbedderValidates(t *testing.T) {
	for _, cfg := range []EmbedConfig{
		{BaseURL: "http://x/v1"},
		{Model: "m"},
		{BaseURL: "ftp://x/v1", Model: "m"},
		{BaseURL: "http://x/v1", Model: "m", BatchSize: -1},
		{BaseURL: "http://x/v1", Model: "m", Dimensions: -1},
	} {
		if _, err := NewEmbedder(cfg); err == nil {
			t.Errorf("NewEmbedder(%+v) accepted", cfg)
		}
	}
	e, err := NewEmbedder(EmbedConfig{BaseURL: "https://x/openai/deployments/d/?api-version=2024", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "m" || e.Endpoint() != "https://x/openai/deployments/d/embeddings?api-version=2024" {
		t.Errorf("model %q endpoint %q", e.Model(), e.Endpoint())
	}
	if e.post.http.Timeout != requestTimeout || e.post.retries != 2 || e.batchSize != 64 {
		t.Errorf("defaults: timeout %v retries %d batch %d", e.post.http.Timeout, e.post.retries, e.batchSize)
	}
}

func TestEmbedBatchesInOrder(t *testing.T) {
	vecs, s, sl, err := embed(t, 130, func(c *EmbedConfig) { c.Headers = map[string]string{"X-Team": "a"} },
		embedReply, embedReply, embedReply)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 130 {
		t.Fatalf("%d vectors", len(vecs))
	}
	for i, v := range vecs {
		if !slices.Equal(v, vectorOf(i)) {
			t.Fatalf("vector %d = %v, want %v", i, v, vectorOf(i))
		}
	}
	wantRequests(t, s, 3)
	wantWaits(t, sl)
	for i, size := range []int{64, 64, 2} {
		r := s.request(i)
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		input, _ := body["input"].([]any)
		if r.Path != "/v1/embeddings" || len(input) != size || input[0] != "t"+strconv.Itoa(64*i) {
			t.Errorf("request %d: path %s, %d inputs from %v", i, r.Path, len(input), input[0])
		}
		if body["model"] != "emb" || body["encoding_format"] != "float" || body["dimensions"] != nil {
			t.Errorf("request %d body: %s", i, r.Body)
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("X-Team") != "a" {
			t.Errorf("request %d headers: %v", i, r.Header)
		}
	}
}

func TestEmbedNothingSendsNothing(t *testing.T) {
	vecs, s, _, err := embed(t, 0, nil)
	if err != nil || len(vecs) != 0 {
		t.Errorf("got %v, %v", vecs, err)
	}
	wantRequests(t, s, 0)
}

func TestEmbedSendsDimensionsAndChecksThem(t *testing.T) {
	_, s, _, err := embed(t, 2, func(c *EmbedConfig) { c.Dimensions = 2 }, embedReply)
	pe := wantProviderError(t, err, provider.Permanent)
	if !strings.Contains(pe.Message, "has 3 dimensions, want 2") {
		t.Errorf("got %v", err)
	}
	if body := string(s.request(0).Body); !strings.Contains(body, `"dimensions":2`) {
		t.Errorf("body %s", body)
	}
}

func TestEmbedRateLimitHonoursRetryAfter(t *testing.T) {
	limited := raw(429, `{"error":{"message":"slow down","type":"rate_limit_exceeded"}}`, "Retry-After", "7")
	vecs, s, sl, err := embed(t, 2, nil, limited, embedReply)
	if err != nil || len(vecs) != 2 {
		t.Fatalf("got %v, %v", vecs, err)
	}
	wantRequests(t, s, 2)
	wantWaits(t, sl, 7*time.Second)
}

func TestEmbedRetryAfterTooLongIsReturned(t *testing.T) {
	_, s, sl, err := embed(t, 2, nil, raw(429, `{"error":{"message":"quota"}}`, "Retry-After", "3600"))
	wantProviderError(t, err, provider.Transient)
	if !strings.Contains(err.Error(), "retry after 1h0m0s") {
		t.Errorf("got %v", err)
	}
	wantRequests(t, s, 1)
	wantWaits(t, sl)
}

func TestEmbedServerErrorsRetriedWithBackoff(t *testing.T) {
	vecs, s, sl, err := embed(t, 3, nil, failWith(500), failWith(502), embedReply)
	if err != nil || len(vecs) != 3 {
		t.Fatalf("got %v, %v", vecs, err)
	}
	wantRequests(t, s, 3)
	wantWaits(t, sl, time.Second, 2*time.Second)
}

func TestEmbedGivesUpAfterThreeAttempts(t *testing.T) {
	_, s, sl, err := embed(t, 3, nil, failWith(500), failWith(500), failWith(500))
	pe := wantProviderError(t, err, provider.Transient)
	if pe.Status != 500 || !strings.HasPrefix(err.Error(), "embeddings: batch 1/1: after 3 attempts: openai: HTTP 500: failure 500") {
		t.Errorf("got %v", err)
	}
	wantRequests(t, s, 3)
	wantWaits(t, sl, time.Second, 2*time.Second)
}

func TestEmbedMaxRetries(t *testing.T) {
	_, s, _, err := embed(t, 1, func(c *EmbedConfig) { c.MaxRetries = -1 }, failWith(503))
	wantProviderError(t, err, provider.Transient)
	wantRequests(t, s, 1)
	_, s, sl, err := embed(t, 1, func(c *EmbedConfig) { c.MaxRetries = 3 }, failWith(503), failWith(503), failWith(503), embedReply)
	if err != nil {
		t.Fatal(err)
	}
	wantRequests(t, s, 4)
	wantWaits(t, sl, time.Second, 2*time.Second, 4*time.Second)
}

func TestEmbedPermanentStatusFailsAtOnce(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404} {
		_, s, sl, err := embed(t, 2, nil, failWith(status))
		pe := wantProviderError(t, err, provider.Permanent)
		if pe.Status != status || pe.Message != fmt.Sprintf("failure %d", status) {
			t.Errorf("%d: got %v", status, err)
		}
		wantRequests(t, s, 1)
		wantWaits(t, sl)
	}
}

func TestEmbedBodyCutIsRetried(t *testing.T) {
	vecs, s, sl, err := embed(t, 1, nil, cutBody(t), embedReply)
	if err != nil || len(vecs) != 1 {
		t.Fatalf("got %v, %v", vecs, err)
	}
	wantRequests(t, s, 2)
	wantWaits(t, sl, time.Second)

	_, _, _, err = embed(t, 1, func(c *EmbedConfig) { c.MaxRetries = -1 }, cutBody(t))
	wantProviderError(t, err, provider.Transient)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v, want the read error wrapped", err)
	}
}

func TestEmbedErrorIn200IsClassified(t *testing.T) {
	overloaded := raw(200, `{"error":{"message":"busy","type":"server_error"}}`)
	vecs, s, _, err := embed(t, 1, nil, overloaded, embedReply)
	if err != nil || len(vecs) != 1 {
		t.Fatalf("got %v, %v", vecs, err)
	}
	wantRequests(t, s, 2)
}

func TestEmbedBadAnswersArePermanent(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"malformed", `{"data":[{"index":0,"embedding":[0.1,}`, "decoding answer: invalid character '}'"},
		{"not numbers", `{"data":[{"index":0,"embedding":["a"]}]}`, "decoding answer: json: cannot unmarshal"},
		{"bad base64", `{"data":[{"index":0,"embedding":"@@"}]}`, "base64 embedding"},
		{"odd base64", `{"data":[{"index":0,"embedding":"AAA="}]}`, "2 bytes is not a list of float32"},
		{"count", `{"data":[{"index":0,"embedding":[1]}]}`, "answer has 1 embeddings for 2 texts"},
		{"no data", `{"object":"list"}`, "answer has 0 embeddings for 2 texts"},
		{"index", `{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[1]}]}`, "embedding 1 has index 2, outside the 2 texts sent"},
		{"twice", `{"data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[1]}]}`, "two embeddings for text 1"},
		{"empty", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1]}]}`, "embedding for text 0 is empty"},
		{"dimensions", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`, "embedding for text 1 has 1 dimensions, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s, sl, err := embed(t, 2, nil, raw(200, tc.body))
			pe := wantProviderError(t, err, provider.Permanent)
			if !strings.Contains(pe.Message, tc.want) || !strings.HasPrefix(err.Error(), "embeddings: batch 1/1: ") {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			wantRequests(t, s, 1)
			wantWaits(t, sl)
		})
	}
}

func TestEmbedDimensionsMustMatchAcrossBatches(t *testing.T) {
	short := raw(200, `{"data":[{"index":0,"embedding":[1,2]}]}`)
	_, _, _, err := embed(t, 2, func(c *EmbedConfig) { c.BatchSize = 1 }, embedReply, short)
	pe := wantProviderError(t, err, provider.Permanent)
	if !strings.HasPrefix(err.Error(), "embeddings: batch 2/2: ") || !strings.Contains(pe.Message, "has 2 dimensions, want 3") {
		t.Errorf("got %v", err)
	}
}

func TestEmbedItemsWithoutIndexTakenInOrder(t *testing.T) {
	vecs, _, _, err := embed(t, 2, nil, raw(200, `{"data":[{"embedding":[1]},{"embedding":[2]}]}`))
	if err != nil || !reflect.DeepEqual(vecs, [][]float32{{1}, {2}}) {
		t.Errorf("got %v, %v", vecs, err)
	}
}

func TestEmbedBase64Embedding(t *testing.T) {
	want := []float32{0.25, -1.5, float32(math.Pi)}
	b := make([]byte, 0, 4*len(want))
	for _, f := range want {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	body := fmt.Sprintf(`{"data":[{"index":0,"embedding":%q}]}`, base64.StdEncoding.EncodeToString(b))
	vecs, _, _, err := embed(t, 1, nil, raw(200, body))
	if err != nil || len(vecs) != 1 || !slices.Equal(vecs[0], want) {
		t.Errorf("got %v, %v", vecs, err)
	}
}

func TestEmbedCancelledDuringBackoffStops(t *testing.T) {
	s := newPostServer(t, failWith(500))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sl := &sleeper{hook: cancel}
	_, err := newEmbedder(t, s, sl, nil).Embed(ctx, texts(2))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	wantRequests(t, s, 1)
	wantWaits(t, sl, time.Second)
}

func TestEmbedCancelledBeforehandSendsNothing(t *testing.T) {
	s := newPostServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newEmbedder(t, s, &sleeper{}, nil).Embed(ctx, texts(2))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	wantRequests(t, s, 0)
}

// The default Sleep must end with the context, however long the wait.
func TestSleepContextEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepContext(ctx, time.Duration(math.MaxInt64)); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
	if err := sleepContext(context.Background(), 0); err != nil {
		t.Errorf("zero wait: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": -1, "soon": -1, "-3": -1, "1.5": -1, "Wed, 21 Oct 2026 07:28:00 GMT": -1,
		"0": 0, " 12 ": 12 * time.Second, "99999999999999": 24 * time.Hour,
	} {
		if got := parseRetryAfter(in); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestBackoffIsCapped(t *testing.T) {
	p := &poster{retries: 100}
	transient := &provider.Error{Kind: provider.Transient}
	for attempt, want := range map[int]time.Duration{0: time.Second, 1: 2 * time.Second, 4: 16 * time.Second, 5: 30 * time.Second, 70: 30 * time.Second} {
		if got, err := p.backoff(context.Background(), attempt, -1, transient); err != nil || got != want {
			t.Errorf("attempt %d: %v, %v, want %v", attempt, got, err, want)
		}
	}
}
