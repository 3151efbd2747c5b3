// Package openai is Moteur's client for OpenAI-compatible chat-completions
// servers: OpenAI, Mistral, DeepSeek, vLLM, Ollama, llama.cpp, LM Studio and
// the like. It owns the wire protocol and nothing else: building the request
// body, reading the server-sent event stream, assembling text, reasoning and
// tool calls from their fragments, and classifying failures as
// provider.Error kinds. Retries and stall detection belong to the engine;
// this package reports every chunk it decodes so the engine can tell a live
// stream from a silent one.
//
// It is written on net/http alone. The files go by concept: client.go (the
// Provider), request.go (request body), sse.go (event-stream reader),
// decode.go (wire shapes of answers), assemble.go (chunks to deltas and
// response), toolcalls.go (tool call assembly), think.go (<think> blocks in
// content), stream.go (stream ends and markers), errors.go (classification).
package openai
