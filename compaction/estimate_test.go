package compaction

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/llm"
)

// Counts recorded from cl100k_base with this library; "hello world" (2) and
// "Hello, world!" (4: Hello , world !) checked by hand against the
// published tables.
func TestTextKnownCounts(t *testing.T) {
	e := NewEstimator()
	cases := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
		{"Bonjour, comment allez-vous aujourd'hui ?", 9},
		{"L'été dernier, nous sommes allés à la plage près de Marseille.", 16},
		{"func main() {\n\tfmt.Println(\"hi\")\n}\n", 10},
		{"for i := 0; i < n; i++ {\n\tsum += a[i]\n}", 19},
	}
	for _, c := range cases {
		if got := e.Text(c.s); got != c.want {
			t.Errorf("Text(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestMessagesOverhead(t *testing.T) {
	e := NewEstimator()
	user := llm.Message{Role: llm.RoleUser, Content: "hello world"}
	if got, want := e.Messages([]llm.Message{user}), 3+2+3; got != want {
		t.Errorf("one message = %d, want %d", got, want)
	}
	if got, want := e.Messages([]llm.Message{user, user}), 2*(3+2)+3; got != want {
		t.Errorf("two messages = %d, want %d", got, want)
	}
	call := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}}
	want := 3 + e.Text("read_file") + e.Text(`{"path":"a.go"}`) + 3
	if got := e.Messages([]llm.Message{call}); got != want {
		t.Errorf("tool call message = %d, want %d", got, want)
	}
	// Reasoning is never sent back, so it costs nothing.
	r := user
	r.Reasoning = strings.Repeat("think ", 100)
	if e.Message(r) != e.Message(user) {
		t.Errorf("reasoning counted: %d != %d", e.Message(r), e.Message(user))
	}
}

func TestTextFallback(t *testing.T) {
	e := newEstimator(func(string) (int, error) { return 0, errors.New("broken tokenizer") })
	if got := e.Text("abcdefgh"); got != 2 {
		t.Errorf("fallback Text(8 bytes) = %d, want 2", got)
	}
	if got := e.Text("abcdefghi"); got != 3 {
		t.Errorf("fallback Text(9 bytes) = %d, want 3 (rounded up)", got)
	}
}

func TestScaleAppliesToTextOnly(t *testing.T) {
	e := NewEstimator()
	e.SetScale(1.5)
	if got := e.Text("hello world"); got != 3 {
		t.Errorf("scaled Text = %d, want 3", got)
	}
	m := []llm.Message{{Role: llm.RoleUser, Content: "hello world"}}
	if got, want := e.Messages(m), 3+3+3; got != want {
		t.Errorf("scaled Messages = %d, want %d (overheads unscaled)", got, want)
	}
}

func TestEstimatorConcurrent(t *testing.T) {
	e := NewEstimator()
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hello world"}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				e.Messages(msgs)
				e.SetScale(1 + float64(i)/100)
				e.Calibrate(Sample{ReportedDelta: 400, Added: []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("word ", 300)}}})
			}
		})
	}
	wg.Wait()
	if s := e.Scale(); s < minScale || s > maxScale {
		t.Errorf("scale %v out of bounds", s)
	}
}

func TestTruncateToolResults(t *testing.T) {
	e := NewEstimator()
	big := strings.Repeat("line of output number forty two\n", 3000) + "FINAL ERROR"
	msgs := []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shell"}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: big},
	}
	out, n := e.TruncateToolResults(msgs, 1000)
	if n != 1 {
		t.Fatalf("cut %d results, want 1", n)
	}
	if got := e.Text(out[1].Content); got > 1000 {
		t.Errorf("truncated result = %d tokens, want ≤ 1000", got)
	}
	if !strings.Contains(out[1].Content, "omitted") || !strings.HasSuffix(out[1].Content, "FINAL ERROR") {
		t.Errorf("truncated result lacks the note or the tail: %q…", out[1].Content[:80])
	}
	if msgs[1].Content != big {
		t.Error("input modified")
	}
	if ResultCap(10000) != 8192 || ResultCap(1000000) != 32768 || ResultCap(100000) != 20000 {
		t.Errorf("ResultCap bounds wrong: %d %d %d", ResultCap(10000), ResultCap(1000000), ResultCap(100000))
	}
}
