package openai

import (
	"testing"

	"github.com/moteur/moteur/provider"
)

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name, body string
		want       serverError
		ok         bool
	}{
		{"openai", `{"error":{"message":"m","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			serverError{"m", "invalid_request_error", "invalid_api_key"}, true},
		{"numeric code", `{"error":{"code":400,"message":"m","type":"exceed_context_size_error"}}`,
			serverError{"m", "exceed_context_size_error", "400"}, true},
		{"ollama string", `{"error":"model \"x\" not found, try pulling it first"}`,
			serverError{Message: `model "x" not found, try pulling it first`}, true},
		{"vllm flat", `{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`,
			serverError{"m", "BadRequestError", "400"}, true},
		{"mistral message object", `{"object":"error","message":{"detail":[{"msg":"bad"}]},"type":"invalid_request_message_error"}`,
			serverError{`{"detail":[{"msg":"bad"}]}`, "invalid_request_message_error", ""}, true},
		{"fastapi detail", `{"detail":"Not Found"}`, serverError{Message: "Not Found"}, true},
		{"fastapi detail list", `{"detail":[{"loc":["body"],"msg":"field required"}]}`,
			serverError{Message: `[{"loc":["body"],"msg":"field required"}]`}, true},
		{"anthropic style", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			serverError{"Overloaded", "overloaded_error", ""}, true},
		{"not json", `<html>502</html>`, serverError{}, false},
		{"unknown json", `{"foo":1}`, serverError{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseErrorBody([]byte(tc.body))
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		status int
		se     serverError
		want   provider.Kind
	}{
		{"408", 408, serverError{}, provider.Transient},
		{"503", 503, serverError{Message: "unavailable"}, provider.Transient},
		{"529 overloaded", 529, serverError{Type: "overloaded_error"}, provider.Transient},
		{"overloaded type on a 400", 400, serverError{Type: "overloaded_error"}, provider.Transient},
		{"rate limit code on a 400", 400, serverError{Code: "rate_limit_exceeded"}, provider.Transient},
		{"403", 403, serverError{Message: "forbidden"}, provider.Permanent},
		{"400 prose mentioning 503", 400, serverError{Message: "upstream 503"}, provider.Permanent},
		{"overflow code beats 429", 429, serverError{Code: "context_length_exceeded"}, provider.ContextOverflow},
		{"429 prose about tokens stays a rate limit", 429,
			serverError{Message: "Too many tokens per minute", Code: "rate_limit_exceeded"}, provider.Transient},
		{"mistral prose", 400, serverError{Message: "Prompt contains 40000 tokens, too large for model with 32768 maximum context length"},
			provider.ContextOverflow},
		{"ollama prose", 400, serverError{Message: "the input length exceeds the context length"}, provider.ContextOverflow},
		{"prose on a 500 is not read", 500, serverError{Message: "context window exceeded"}, provider.Transient},
		{"in stream, no clue", 0, serverError{Message: "oops"}, provider.Permanent},
		{"in stream, status code", 0, serverError{Message: "oops", Code: "503"}, provider.Transient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.status, tc.se); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
