package event

import (
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/llm"
)

func samples() []Event {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ps := map[Type]any{
		SessionStarted: SessionStartedPayload{Provider: "p", Model: "m", Tools: []string{"a"}, MaxIterations: 50, Lang: "fr",
			Profile: "restricted", Mode: "confirm", Policy: &PolicyInfo{Path: "/etc/moteur/policy.yaml", AllowedHosts: []string{"h"}},
			Routing:    &RoutingInfo{Candidates: []RouteCandidate{{Provider: "local", Model: "q", Local: true}}},
			Allowlists: [][]string{{"a.example"}}, Sandbox: &effect.Sandbox{Kind: "bwrap"}, MCP: []MCPServerInfo{{Name: "git"}}},
		UserMessage:      UserMessagePayload{Text: "salut", Typed: "/s salut", Skill: "s", SkillSHA256: "ab"},
		AssistantMessage: AssistantMessagePayload{Text: "t", ToolCalls: []llm.ToolCall{{ID: "c", Name: "n", Arguments: "{}"}}, Round: 2, Usage: &llm.Usage{TotalTokens: 3}},
		ToolResult:       ToolResultPayload{CallID: "c", Name: "n", Content: "r", IsError: true, DurationMS: 5, Round: 2},
		ProviderRetry:    ProviderRetryPayload{Attempt: 1, DelayMS: 1000, Error: "429"},
		TurnCompleted:    TurnCompletedPayload{Reason: StopNatural, Answer: "a", Rounds: 2, Requests: 3},
		Error:            ErrorPayload{Message: "m", Kind: "provider", Status: 500, Transient: true},
		AssistantDelta:   DeltaPayload{Text: "x", Round: 1},
		ReasoningDelta:   DeltaPayload{Text: "y", Round: 1},
		ToolProgress:     ToolProgressPayload{CallID: "c1", Name: "mcp_everything_longRunningOperation", Message: "step 2", Done: 2, Total: 5, Round: 1},
		PermissionRequested: PermissionRequestedPayload{ID: "s-1", Number: 1, CallID: "c", Tool: "write_file",
			Summary: "write a.txt", Risk: "write", Sandboxed: true},
		PermissionResolved: PermissionResolvedPayload{ID: "s-1", CallID: "c", Tool: "write_file", Allow: false, By: "user", Reason: "non"},
		Warning:            WarningPayload{Kind: "jurisdiction", Message: "hors UE"},
		ContextCompacted:   ContextCompactedPayload{Summary: "résumé", Replaced: 4, TokensBefore: 900, TokensAfter: 200},
		SessionClassified:  SessionClassifiedPayload{Marking: "DIFFUSION RESTREINTE", Source: "user"},
		ProviderSelected:   ProviderSelectedPayload{Provider: "local", Model: "qwen", Local: true, Reason: "sensitive"},
		McpServerDown:      McpServerDownPayload{Name: "git", Error: "exit 1"},
		HookStarted:        HookStartedPayload{Hook: "lint", Event: "PreToolUse"},
		HookCompleted:      HookCompletedPayload{Hook: "lint", Event: "PreToolUse", ExitCode: 2, Blocked: true},
		KnowledgeRetrieved: KnowledgeRetrievedPayload{Query: "congés", RequestedMode: "hybrid", Candidates: 3,
			References: []cite.Ref{{Alias: "c1", Kind: cite.Chunk, ID: "d-1-0", Title: "Congés", Score: 0.8}}},
		Rewound: RewoundPayload{ToSeq: 2, Mode: "both", Length: 1,
			Files: []RewoundFile{{Path: "a", Status: "ok"}}, Prompt: "p"},
	}
	var out []Event
	for i, typ := range Types() {
		spec, _ := SpecOf(typ)
		out = append(out, Event{Seq: uint64(i + 1), Type: typ, SessionID: "s", Time: at, Ephemeral: !spec.Persisted, Payload: ps[typ]})
	}
	return out
}

func TestEveryTypeHasSampleAndDecision(t *testing.T) {
	for _, e := range samples() {
		if e.Payload == nil {
			t.Errorf("type %s has no sample payload: add one and decide its persistence", e.Type)
		}
		spec, ok := SpecOf(e.Type)
		if !ok {
			t.Errorf("type %s has no spec", e.Type)
		}
		if spec.Restored() && !spec.Persisted {
			t.Errorf("type %s is restored but never persisted", e.Type)
		}
	}
}

func TestRoundTripTypedPayloads(t *testing.T) {
	for _, e := range samples() {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", e.Type, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("%s round trip:\n got %#v\nwant %#v", e.Type, got, e)
		}
	}
}

func TestUnknownTypeKeepsRawPayload(t *testing.T) {
	e, err := Decode([]byte(`{"seq":9,"type":"FromTheFuture","session_id":"s","time":"2026-11-30T09:00:00Z","payload":{"x":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if raw, ok := e.Payload.(json.RawMessage); !ok || string(raw) != `{"x":1}` {
		t.Errorf("payload = %#v", e.Payload)
	}
	if spec, known := SpecOf("FromTheFuture"); known || !spec.Persisted || spec.Restored() {
		t.Errorf("unknown types must be persisted and not restored, got %+v", spec)
	}
}

func TestDecodeErrorsSayWhat(t *testing.T) {
	for in, want := range map[string]string{
		`{"seq":1}`: "missing type",
		`{"seq":1,"type":"UserMessage","payload":{"text":5}}`: "event 1 (UserMessage): payload",
		`not json`: "event:",
	} {
		if _, err := Decode([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want an error containing %q", in, err, want)
		}
	}
}

func TestJSONLSinkWritesAndReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	s, err := OpenJSONL(JSONLConfig{Path: path, Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	want := samples()
	for _, e := range want {
		if err := s.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(t.Context(), want[0]); err == nil {
		t.Error("write after close must fail")
	}
	got, err := ReadJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %d events, differ from the %d written", len(got), len(want))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestReadJSONLNamesBadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	good, _ := json.Marshal(samples()[0])
	if err := os.WriteFile(path, append(append(good, '\n'), []byte("{broken\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONL(path)
	if err == nil || !strings.Contains(err.Error(), "log.jsonl:2") || len(got) != 1 {
		t.Errorf("ReadJSONL = %d events, %v", len(got), err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, e := range samples() {
		b, _ := json.Marshal(e)
		f.Add(b)
	}
	f.Add([]byte(`{"type":"ToolResult","payload":null}`))
	f.Add([]byte(`{"type":"AssistantMessage","payload":{"tool_calls":[{}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("decoded event does not encode: %v", err)
		}
		if _, err := Decode(again); err != nil {
			t.Fatalf("re-encoded event does not decode: %v", err)
		}
	})
}

// TestReadsLogsOfEarlierVersions reads the session logs committed by earlier
// versions: every later version must still decode them to typed payloads.
func TestReadsLogsOfEarlierVersions(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "compat", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no committed logs found: %v", err)
	}
	for _, p := range paths {
		evs, err := ReadJSONL(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for i, e := range evs {
			if e.Seq != uint64(i+1) {
				t.Errorf("%s: event %d has seq %d", p, i, e.Seq)
			}
			if _, raw := e.Payload.(json.RawMessage); raw {
				t.Errorf("%s: %s no longer decodes to a typed payload", p, e.Type)
			}
		}
		if first := evs[0].Payload.(SessionStartedPayload); first.Provider == "" || len(first.Tools) == 0 {
			t.Errorf("%s: SessionStarted lost its fields: %+v", p, first)
		}
	}
}

// TestEveryTypeConstantHasSpec reads the Type constants from the source, so
// that adding a type without deciding its fate in specs fails here.
func TestEveryTypeConstantHasSpec(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "types.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil || fmt.Sprint(vs.Type) != "Type" {
			return true
		}
		for _, v := range vs.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok {
				continue
			}
			found++
			name, _ := strconv.Unquote(lit.Value)
			if _, ok := SpecOf(Type(name)); !ok {
				t.Errorf("event type %s has no Spec: decide whether it is persisted and what Restore does with it", name)
			}
		}
		return true
	})
	if found != len(Types()) {
		t.Errorf("types.go declares %d types, specs knows %d", found, len(Types()))
	}
}
