// Package openai is Moteur's client for OpenAI-compatible servers: OpenAI,
// Mistral, DeepSeek, vLLM, Ollama, llama.cpp, LM Studio and the like. It
// owns their wire protocols and nothing else:
//
//   - Client, the provider.Provider of /chat/completions: it builds the
//     request body, reads the server-sent event stream (or the whole
//     completion of a server that ignores stream:true), assembles text,
//     reasoning (the reasoning fields, and <think> blocks in the content)
//     and tool calls from their fragments, and classifies failures as
//     provider.Error kinds. It neither retries failures nor watches for
//     stalls: the engine does both, and Client reports every chunk it
//     decodes, keepalives included, so that the engine can tell a live
//     stream from a silent one. It adjusts a request's reasoning effort to
//     the levels the server accepts, and sends a request again once,
//     without reasoning_effort, when the server refuses that field.
//   - Embedder (/embeddings) and Reranker (/rerank), which knowledge bases
//     use: one JSON request and its answer each. They retry transient
//     failures themselves, with a backoff that honours Retry-After, since
//     no engine stands behind them.
//
// It is written on net/http alone. Package openaitest serves the same
// protocol, scripted, for tests.
package openai
