package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moteur/moteur/effect"
)

func TestCallSubject(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string // "" when ok must be false
	}{
		{`{"command":"git status","timeout_sec":5}`, "git status"},
		{`{"command":["git","log","-1"]}`, "git log -1"},
		{`{"path":"src/main.go","content":"x"}`, "src/main.go"},
		{`{"PATH":"/etc/passwd"}`, "/etc/passwd"},
		{`{"File_Path":"notes.md"}`, "notes.md"},
		{`{"paths":["a.go","b.go"]}`, "a.go, b.go"},
		{`{"Url":"https://example.com/x"}`, "https://example.com/x"},
		{`{"urls":["https://a.example","https://b.example"]}`, "https://a.example, https://b.example"},
		{`{"items":[{"url":"https://a.example"},{"URL":"https://b.example"}]}`, "https://a.example, https://b.example"},
		// Every subject, in the table's order, whatever the arguments' order:
		// a rule may have asked for any of them.
		{`{"url":"https://example.com","path":"out.html"}`, "out.html, https://example.com"},
		{`{"path":"a","command":"make"}`, "make, a"},
		// A command's env and stdin are not its subject's text.
		{`{"command":"cat","stdin":"hello","env":{"TZ":"UTC"}}`, "cat"},
		// items that are not {url} objects are an ordinary argument.
		{`{"items":[{"task":"x"}],"path":"todo.md"}`, "todo.md"},
		{`{"path":null,"url":"https://example.com"}`, "https://example.com"},

		// No subject: the summary shows the arguments.
		{`{"query":"holidays"}`, ""},
		{`{"items":[{"task":"x"}]}`, ""},
		{`{"path":""}`, ""},
		{`{}`, ""},
		{``, ""},
		// What the rules cannot read with certainty.
		{`{"path":"a","PATH":"b"}`, ""},
		{`{"path":null,"Path":"b"}`, ""},
		{`{"path":3}`, ""},
		{`{"command":{"argv":["ls"]}}`, ""},
		{`{"command":"ls","env":"TZ=UTC"}`, ""},
		{`{"items":[{"url":"a","url":"b"}]}`, ""},
		{`["ls"]`, ""},
		{`{"path":"a"} {"path":"b"}`, ""},
	} {
		got, ok := CallSubject(json.RawMessage(tc.args))
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("CallSubject(%s) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.want != "")
		}
	}
}

// TestCallSubjectNamesWhatTheRulesJudge: the text holds the subject every
// rule matched, whatever the case of its argument's name.
func TestCallSubjectNamesWhatTheRulesJudge(t *testing.T) {
	p, err := NewPermissions(PermissionsConfig{Mode: AutoWrite, Root: "/proj",
		Rules: Rules{Ask: []string{"write_file(secrets/**)", "fetch(domain:evil.example)"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args, subject string }{
		{"write_file", `{"PATH":"secrets/key.pem","content":"x"}`, "secrets/key.pem"},
		{"fetch", `{"path":"page.html","URL":"https://evil.example/x"}`, "https://evil.example/x"},
	} {
		v := p.Check(Request{Session: "s", Tool: tc.tool, Args: json.RawMessage(tc.args), Risk: effect.RiskRead})
		if v.Decision != Ask {
			t.Fatalf("%s %s: %+v, want ask", tc.tool, tc.args, v)
		}
		got, ok := CallSubject(json.RawMessage(tc.args))
		if !ok || !strings.Contains(got, tc.subject) {
			t.Errorf("%s %s: CallSubject = %q, %v; it must name %q", tc.tool, tc.args, got, ok, tc.subject)
		}
	}
}
