package openai

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/moteur/moteur/llm"
)

// DefaultEfforts are the reasoning efforts a server is taken to accept
// when its configuration lists none: those OpenAI-compatible servers
// accept.
func DefaultEfforts() []string {
	return []string{llm.EffortMinimal, llm.EffortLow, llm.EffortMedium, llm.EffortHigh}
}

// supportedEfforts checks a configured list of efforts and returns it in
// llm.EffortLevels' order, without repeats (nil or empty: DefaultEfforts).
func supportedEfforts(list []string) ([]string, error) {
	if len(list) == 0 {
		return DefaultEfforts(), nil
	}
	var out []string
	for _, level := range llm.EffortLevels() {
		if slices.Contains(list, level) {
			out = append(out, level)
		}
	}
	for _, e := range list {
		if !slices.Contains(out, e) {
			return nil, fmt.Errorf("unknown reasoning effort %q: want %s", e, strings.Join(llm.EffortLevels(), ", "))
		}
	}
	return out, nil
}

// adjustEffort is the level of supported (weakest first, not empty) to
// send for asked: asked itself when supported; for max, the strongest
// supported; else the strongest supported below asked, or the weakest
// supported when none is below. An asked level that is not one of
// llm.EffortLevels is not sent ("").
func adjustEffort(asked string, supported []string) string {
	rank := slices.Index(llm.EffortLevels(), asked)
	if rank < 0 || len(supported) == 0 {
		return ""
	}
	if asked == llm.EffortMax {
		return supported[len(supported)-1]
	}
	out := supported[0]
	for _, s := range supported {
		if slices.Index(llm.EffortLevels(), s) <= rank {
			out = s
		}
	}
	return out
}

// EffortFor is the reasoning_effort the client sends for a request that
// asks for asked: the level adjusted to those the server accepts (see
// Config.ReasoningEfforts), or "" when none is sent — asked is empty or
// unknown, or the server refused the field once.
func (c *Client) EffortFor(asked string) string {
	if asked == "" || c.effortRefused.Load() {
		return ""
	}
	return adjustEffort(asked, c.efforts)
}

// refusesEffort reports whether resp, a 400 answer, is about the
// reasoning_effort field: the server does not take it (an unknown field)
// or not the value sent. Its body is read and put back, for statusError.
func refusesEffort(resp *http.Response) bool {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return bytes.Contains(bytes.ToLower(body), []byte("reasoning_effort"))
}
