package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/moteur/moteur/provider/openai/openaitest"
)

// thinkingArgs are valid arguments of the thinking tool.
const thinkingArgs = `{"thought":"Plan the answer","next_thought_needed":false,"thought_number":1,"total_thoughts":1}`

// toolThenAnswer is the script of a turn with one thinking call, then an
// answer streamed in pieces after some reasoning.
func toolThenAnswer(answer ...string) []http.HandlerFunc {
	second := []string{openaitest.Reasoning("secret musing")}
	for _, a := range answer {
		second = append(second, openaitest.Text(a))
	}
	second = append(second, openaitest.Chunk(`{}`, "stop"), openaitest.Done)
	return []http.HandlerFunc{openaitest.Calls("call_1", "thinking", thinkingArgs), openaitest.Stream(second...)}
}

// envMap turns a map into the env function execute takes.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// harness runs the real command tree in process.
type harness struct {
	env   map[string]string
	dir   string // project root
	stdin io.Reader
}

func newHarness(t *testing.T, baseURL string) *harness {
	t.Helper()
	return &harness{
		env: map[string]string{
			"MOTEUR_BASE_URL": baseURL,
			"MOTEUR_MODEL":    "test-model",
			"MOTEUR_API_KEY":  "sk-moteur",
			"MOTEUR_HOME":     t.TempDir(),
		},
		dir:   t.TempDir(),
		stdin: strings.NewReader(""),
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func (h *harness) run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	c := newCLI(envMap(h.env), h.stdin, &out, &errOut)
	c.workDir = func() (string, error) { return h.dir, nil }
	code := c.execute(t.Context(), args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}
