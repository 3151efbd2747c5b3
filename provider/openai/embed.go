package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"
)

// EmbedConfig configures an Embedder. Zero values are defaults.
type EmbedConfig struct {
	// BaseURL is the API root, as Config.BaseURL; requests go to
	// BaseURL + "/embeddings", the query string kept. Required.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>" when set.
	APIKey string
	// Model is the embedding model. Required.
	Model string
	// Dimensions asks the server for vectors of that length (models with
	// Matryoshka embeddings); 0 sends nothing. When set, vectors of another
	// length are an error.
	Dimensions int
	// BatchSize is the number of texts per request; 0 means 64.
	BatchSize int
	// MaxRetries is the number of retries of a transient failure: 0 means
	// 2 (three attempts in all), a negative number none.
	MaxRetries int
	// HTTPClient sends the requests. Nil means the chat client's default
	// with, in addition, 60 s for a whole exchange: an embeddings answer
	// comes at once, it does not stream.
	HTTPClient *http.Client
	// Headers are added to every request, after the default ones, which
	// they may replace.
	Headers map[string]string
	// Sleep waits between attempts; nil means a timer that ends with ctx.
	// Tests replace it to see the waits without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Embedder turns texts into vectors with an OpenAI-compatible
// /embeddings endpoint. It is safe for concurrent use.
type Embedder struct {
	post       *poster
	model      string
	dimensions int
	batchSize  int
}

// defaultBatchSize is what most servers accept in one request without
// running out of memory or time; OpenAI allows 2048 inputs, some local
// servers far fewer.
const defaultBatchSize = 64

// NewEmbedder checks cfg and returns an Embedder.
func NewEmbedder(cfg EmbedConfig) (*Embedder, error) {
	if cfg.Model == "" {
		return nil, errors.New("embeddings: Model is required")
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 {
		return nil, fmt.Errorf("embeddings: negative Dimensions (%d) or BatchSize (%d)", cfg.Dimensions, cfg.BatchSize)
	}
	p, err := newPoster(postConfig{baseURL: cfg.BaseURL, path: "/embeddings", apiKey: cfg.APIKey,
		maxRetries: cfg.MaxRetries, httpClient: cfg.HTTPClient, headers: cfg.Headers, sleep: cfg.Sleep})
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	e := &Embedder{post: p, model: cfg.Model, dimensions: cfg.Dimensions, batchSize: cfg.BatchSize}
	if e.batchSize == 0 {
		e.batchSize = defaultBatchSize
	}
	return e, nil
}

// Model returns the configured model.
func (e *Embedder) Model() string { return e.model }

// Endpoint is the URL requests are sent to, for the checks made before a
// send.
func (e *Embedder) Endpoint() string { return e.post.endpoint }

// Embed returns one vector per text, in the texts' order. Texts are sent in
// batches of BatchSize, one after the other; every vector has the same
// length. Transient failures are retried (see EmbedConfig.MaxRetries);
// errors wrap a *provider.Error, or the context's error, and say which
// batch failed.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	batches := (len(texts) + e.batchSize - 1) / e.batchSize
	dims := e.dimensions
	for b := range batches {
		batch := texts[b*e.batchSize : min((b+1)*e.batchSize, len(texts))]
		vecs, err := e.embedBatch(ctx, batch, dims)
		if err != nil {
			return nil, fmt.Errorf("embeddings: batch %d/%d: %w", b+1, batches, err)
		}
		// The first batch fixes the length the later ones must have.
		dims = len(vecs[0])
		out = append(out, vecs...)
	}
	return out, nil
}

type wireEmbedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type wireEmbedAnswer struct {
	answerError
	Data []wireEmbedding `json:"data"`
}

type wireEmbedding struct {
	// Index is the text's position in the request. Servers may answer
	// out of order; one that omits the index is taken in order.
	Index     *int       `json:"index"`
	Embedding wireVector `json:"embedding"`
}

// embedBatch embeds one batch; dims is the length every vector must have,
// 0 for any (all alike).
func (e *Embedder) embedBatch(ctx context.Context, texts []string, dims int) ([][]float32, error) {
	req := wireEmbedRequest{Model: e.model, Input: texts, EncodingFormat: "float", Dimensions: e.dimensions}
	var vecs [][]float32
	err := e.post.post(ctx, req, func(body []byte) error {
		var ans wireEmbedAnswer
		if err := e.post.decodeAnswer(body, &ans); err != nil {
			return err
		}
		var err error
		vecs, err = place(ans.Data, len(texts), dims)
		if err != nil {
			return e.post.badAnswer(err, "%v", err)
		}
		return nil
	})
	return vecs, err
}

// place puts each vector at its text's position and checks that every text
// got one, and all of length dims (the first one's when dims is 0).
func place(data []wireEmbedding, n, dims int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("answer has %d embeddings for %d texts", len(data), n)
	}
	out := make([][]float32, n)
	for i, d := range data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		switch {
		case at < 0 || at >= n:
			return nil, fmt.Errorf("embedding %d has index %d, outside the %d texts sent", i, at, n)
		case out[at] != nil:
			return nil, fmt.Errorf("two embeddings for text %d", at)
		case len(d.Embedding) == 0:
			return nil, fmt.Errorf("embedding for text %d is empty", at)
		}
		if dims == 0 {
			dims = len(d.Embedding)
		}
		if len(d.Embedding) != dims {
			return nil, fmt.Errorf("embedding for text %d has %d dimensions, want %d", at, len(d.Embedding), dims)
		}
		out[at] = d.Embedding
	}
	return out, nil
}

// wireVector is an embedding as a list of numbers or, from a server that
// ignores encoding_format "float", as base64 of little-endian float32s.
type wireVector []float32

func (v *wireVector) UnmarshalJSON(b []byte) error {
	if firstByte(b) != '"' {
		return json.Unmarshal(b, (*[]float32)(v))
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("base64 embedding: %w", err)
	}
	if len(raw)%4 != 0 {
		return fmt.Errorf("base64 embedding of %d bytes is not a list of float32", len(raw))
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	*v = out
	return nil
}
