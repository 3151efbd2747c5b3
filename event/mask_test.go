package event

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/redact/redacttest"
)

// maskExempt lists the string fields of payloads that MaskEvent leaves
// alone, as Type.Field paths ([] for the elements of a slice): identifiers,
// names, enumerations, hashes and paths. A new string field is masked unless
// it is added here.
var maskExempt = map[string]bool{
	"SessionStartedPayload.Provider": true, "SessionStartedPayload.Model": true,
	"SessionStartedPayload.ProjectRoot": true, "SessionStartedPayload.Instructions[]": true,
	"SessionStartedPayload.Tools[]": true, "SessionStartedPayload.Lang": true,
	// SessionStarted describes the configuration: names, hosts, paths.
	"SessionStartedPayload.Profile": true, "SessionStartedPayload.Mode": true,
	"SessionStartedPayload.Policy.Path": true, "SessionStartedPayload.Policy.AllowedHosts[]": true,
	"SessionStartedPayload.Policy.DeniedTools[]": true, "SessionStartedPayload.Policy.Profile": true,
	"SessionStartedPayload.Policy.MinMode":                true,
	"SessionStartedPayload.Routing.Candidates[].Provider": true, "SessionStartedPayload.Routing.Candidates[].Model": true,
	"SessionStartedPayload.Routing.Candidates[].Host": true,
	"SessionStartedPayload.Allowlists[][]":            true,
	"SessionStartedPayload.Sandbox.Kind":              true, "SessionStartedPayload.Sandbox.Detail": true,
	"SessionStartedPayload.Sandbox.Capabilities": true, "SessionStartedPayload.Sandbox.Seccomp[]": true,
	"SessionStartedPayload.Sandbox.ReadOnly[]": true,
	"SessionStartedPayload.MCP[].Name":         true, "SessionStartedPayload.MCP[].Tools[]": true,
	"SessionStartedPayload.MCP[].Transport": true, "SessionStartedPayload.Agent": true,
	"PermissionResolvedPayload.ID": true, "PermissionResolvedPayload.CallID": true,
	"PermissionResolvedPayload.Tool": true, "PermissionResolvedPayload.By": true,
	"WarningPayload.Kind":      true,
	"UserMessagePayload.Skill": true, "UserMessagePayload.SkillSHA256": true,
	"AssistantMessagePayload.ToolCalls[].ID": true, "AssistantMessagePayload.ToolCalls[].Name": true,
	"AssistantMessagePayload.Finish": true, "AssistantMessagePayload.Provider": true,
	"AssistantMessagePayload.Model": true,
	"ToolResultPayload.CallID":      true, "ToolResultPayload.Name": true,
	"ToolResultPayload.Display": true, "ToolResultPayload.Risk": true,
	"ToolResultPayload.Changes[].Path": true, "ToolResultPayload.Changes[].Before": true,
	"ToolResultPayload.Changes[].After":    true,
	"ToolResultPayload.Attachments[].MIME": true, "ToolResultPayload.Attachments[].SHA256": true,
	"ToolProgressPayload.CallID": true, "ToolProgressPayload.Name": true,
	"ToolResultPayload.References[].Alias": true, "ToolResultPayload.References[].Kind": true,
	"ToolResultPayload.References[].ID": true, "ToolResultPayload.References[].Base": true,
	"ToolResultPayload.References[].Document":      true,
	"KnowledgeRetrievedPayload.References[].Alias": true, "KnowledgeRetrievedPayload.References[].Kind": true,
	"KnowledgeRetrievedPayload.References[].ID": true, "KnowledgeRetrievedPayload.References[].Base": true,
	"KnowledgeRetrievedPayload.References[].Document": true, "KnowledgeRetrievedPayload.RequestedMode": true,
	"AssistantMessagePayload.Citations[].Alias": true, "AssistantMessagePayload.Citations[].Kind": true,
	"AssistantMessagePayload.Citations[].ID": true, "AssistantMessagePayload.Citations[].Base": true,
	"AssistantMessagePayload.Citations[].Document": true,
	"TurnCompletedPayload.Reason":                  true,
	"ErrorPayload.Kind":                            true,
	"PermissionRequestedPayload.ID":                true, "PermissionRequestedPayload.CallID": true,
	"PermissionRequestedPayload.Tool": true, "PermissionRequestedPayload.Risk": true,
	"ContextCompactedPayload.Reason":   true,
	"SessionClassifiedPayload.Marking": true, "SessionClassifiedPayload.Source": true,
	"ProviderSelectedPayload.Provider": true, "ProviderSelectedPayload.Model": true,
	"McpServerDownPayload.Name": true, "McpServerDownPayload.Transport": true,
	"HookStartedPayload.Hook": true, "HookStartedPayload.Event": true,
	"HookCompletedPayload.Hook": true, "HookCompletedPayload.Event": true,
	"RewoundPayload.Mode": true, "RewoundPayload.Files[].Path": true, "RewoundPayload.Files[].Status": true,
}

// payloadTypeOf is the payload struct the specs give t.
func payloadTypeOf(t Type) reflect.Type { return specs[t].payload }

// fill sets every string reachable in v (struct fields, slice elements,
// pointed-to structs) to secret, and every other scalar to a value other
// than its zero, so that a masked method that drops a field is caught.
func fill(v reflect.Value, secret string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(secret)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), secret)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), secret)
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), secret)
		v.Set(p)
	}
}

// eachLeaf calls f with the path and value of every scalar reachable in v.
func eachLeaf(v reflect.Value, path string, f func(path string, v reflect.Value)) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				eachLeaf(v.Field(i), path+"."+v.Type().Field(i).Name, f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			eachLeaf(v.Index(i), path+"[]", f)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			eachLeaf(v.Elem(), path, f)
		}
	default:
		f(path, v)
	}
}

// eachString calls f with the path and value of every string reachable in v.
func eachString(v reflect.Value, path string, f func(path, s string)) {
	eachLeaf(v, path, func(path string, v reflect.Value) {
		if v.Kind() == reflect.String {
			f(path, v.String())
		}
	})
}

// nonText lists the scalars of v that are not strings, with their paths.
func nonText(v reflect.Value) []string {
	var out []string
	eachLeaf(v, v.Type().Name(), func(path string, v reflect.Value) {
		if v.Kind() != reflect.String {
			out = append(out, fmt.Sprintf("%s=%v", path, v))
		}
	})
	return out
}

// TestMaskEventCoversEveryPayload fails when a payload type is added
// without its masked method, or with a string field that method neither
// masks nor maskExempt declares an identifier: every string field of every
// spec'd payload holds a secret, and only the fields of maskExempt may keep
// it. The other fields must come through as they were.
func TestMaskEventCoversEveryPayload(t *testing.T) {
	const secret = "leak OPENAI_API_KEY=" + redacttest.OpenAI + " " + redacttest.GitHub
	seen := map[string]bool{}
	for _, typ := range Types() {
		pt := payloadTypeOf(typ)
		in := reflect.New(pt).Elem()
		fill(in, secret)
		orig := reflect.New(pt).Elem()
		fill(orig, secret)

		if _, ok := in.Interface().(masker); !ok {
			t.Errorf("%s: %s has no masked method: give it one beside the type, in payloads.go (and its identifiers to maskExempt)", typ, pt.Name())
		}
		e := Event{Seq: 1, Type: typ, SessionID: "s", Payload: in.Interface()}
		out := MaskEvent(e)
		if reflect.TypeOf(out.Payload) != pt {
			t.Fatalf("%s: payload type %T, want %v", typ, out.Payload, pt)
		}
		eachString(reflect.ValueOf(out.Payload), pt.Name(), func(path, s string) {
			seen[path] = true
			switch {
			case maskExempt[path] && s != secret:
				t.Errorf("%s: exempt field %s was changed to %q", typ, path, s)
			case !maskExempt[path] && (strings.Contains(s, redacttest.OpenAI) || strings.Contains(s, redacttest.GitHub)):
				t.Errorf("%s: field %s keeps its secret: %q", typ, path, s)
			}
		})
		if before, after := nonText(orig), nonText(reflect.ValueOf(out.Payload)); !slices.Equal(before, after) {
			t.Errorf("%s: masking changed fields that are not text:\n before %v\n after  %v", typ, before, after)
		}
		// The input is a value and its slices are shared: MaskEvent must not
		// have written into them.
		if !reflect.DeepEqual(in.Interface(), orig.Interface()) {
			t.Errorf("%s: MaskEvent modified its input", typ)
		}
	}
	for path := range maskExempt {
		if !seen[path] {
			t.Errorf("maskExempt names %s, which no payload has", path)
		}
	}
}

func TestMaskEventToolCallArgumentsStayJSON(t *testing.T) {
	calls := []llm.ToolCall{
		{ID: "c1", Name: "bash", Arguments: `{"command":"echo ` + redacttest.OpenAI + `"}`},
		// An unterminated key block runs to the end of the text, across the
		// closing quote: masked string by string instead.
		{ID: "c2", Name: "write", Arguments: `{"content":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC","path":"k.pem"}`},
		{ID: "c3", Name: "x", Arguments: `{"api_key": ` + "\"a1b2c3d4e5\"}"},
		{ID: "c4", Name: "x", Arguments: `not json ` + redacttest.OpenAI},
		{ID: "c5", Name: "x", Arguments: `{"n":1}`},
	}
	shared := slices.Clone(calls)
	e := MaskEvent(Event{Type: AssistantMessage, Payload: AssistantMessagePayload{Text: "t", ToolCalls: shared}})
	got := e.Payload.(AssistantMessagePayload).ToolCalls
	if !reflect.DeepEqual(shared, calls) {
		t.Error("MaskEvent wrote into the caller's ToolCalls")
	}
	want := []string{
		`{"command":"echo [REDACTED:openai_key]"}`,
		`{"content":"[REDACTED:private_key]","path":"k.pem"}`,
		`{"api_key": "[REDACTED:env_secret]"}`,
		`not json [REDACTED:openai_key]`,
		`{"n":1}`,
	}
	for i, c := range got {
		if c.Arguments != want[i] {
			t.Errorf("call %d: arguments %q, want %q", i, c.Arguments, want[i])
		}
		if c.ID != calls[i].ID || c.Name != calls[i].Name {
			t.Errorf("call %d: id/name changed: %+v", i, c)
		}
	}
}

func TestMaskEventUnknownPayloads(t *testing.T) {
	raw := json.RawMessage(`{"note":"` + redacttest.GitHub + `","n":12345678901234567890}`)
	e := MaskEvent(Event{Type: "FromTheFuture", Payload: raw})
	if got := string(e.Payload.(json.RawMessage)); got != `{"note":"[REDACTED:github_token]","n":12345678901234567890}` {
		t.Errorf("raw payload masked to %s", got)
	}
	if string(raw) != `{"note":"`+redacttest.GitHub+`","n":12345678901234567890}` {
		t.Error("MaskEvent wrote into the raw payload")
	}
	// Text masking that would break the JSON falls back to the structure.
	broken := json.RawMessage(`{"b":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC","a":{"password":"hunter2"},"n":12345678901234567890}`)
	got := MaskEvent(Event{Type: "FromTheFuture", Payload: broken}).Payload.(json.RawMessage)
	if want := `{"a":{"password":"[REDACTED:env_secret]"},"b":"[REDACTED:private_key]","n":12345678901234567890}`; string(got) != want {
		t.Errorf("structural masking gave %s, want %s", got, want)
	}

	// A payload type from elsewhere: every string masked, by reflection.
	type foreign struct {
		Note  string
		Items []string
		Ptr   *UserMessagePayload
		n     string
	}
	in := foreign{Note: redacttest.Slack, Items: []string{"ok", redacttest.Google}, Ptr: &UserMessagePayload{Text: redacttest.AWS}, n: redacttest.AWS}
	out := MaskEvent(Event{Type: "X", Payload: in}).Payload.(foreign)
	if out.Note != "[REDACTED:slack_token]" || out.Items[1] != "[REDACTED:google_api_key]" || out.Ptr.Text != "[REDACTED:aws_access_key]" {
		t.Errorf("foreign payload masked to %+v (%+v)", out, *out.Ptr)
	}
	if in.Items[1] != redacttest.Google || in.Ptr.Text != redacttest.AWS {
		t.Error("MaskEvent wrote into a foreign payload")
	}
	// A pointer to a known payload goes the reflective way too.
	pm := MaskEvent(Event{Type: UserMessage, Payload: &UserMessagePayload{Text: redacttest.JWT}}).Payload.(*UserMessagePayload)
	if pm.Text != "[REDACTED:jwt]" {
		t.Errorf("pointer payload masked to %q", pm.Text)
	}
	if np := MaskEvent(Event{Type: UserMessage, Payload: (*UserMessagePayload)(nil)}).Payload.(*UserMessagePayload); np != nil {
		t.Errorf("nil pointer payload masked to %+v", np)
	}
	if MaskEvent(Event{Type: Error}).Payload != nil {
		t.Error("nil payload must stay nil")
	}
}

// The secrets the audit tests write into events.
const (
	tOpenAI = redacttest.OpenAI
	tGitHub = redacttest.GitHub
)

// benchText is ordinary tool output, for the audit tests' events.
func benchText(n int) string { return redacttest.ToolOutput(n) }

// TestMaskEventEscapedSecretsInArguments: secrets a model spells with \u
// escapes in tool arguments (part of a key, a whole key, a key in a JSON
// document held in a string) are stored masked, the escapes gone with
// them, and the arguments stay JSON.
func TestMaskEventEscapedSecretsInArguments(t *testing.T) {
	key := redacttest.OpenAI[:8] + `\u0041` + redacttest.OpenAI[9:] // sk-proj-\u0041b3d…: "A" escaped
	for _, args := range []string{
		`{"command":"curl -H 'Authorization: Bearer x' ` + key + `"}`,
		`{"q":"` + redacttest.EscapeAll(redacttest.GitHub) + `"}`,
		`{"body":"{\"token\":\"` + strings.ReplaceAll(redacttest.EscapeAll(redacttest.GitHub), `\`, `\\`) + `\"}"}`,
		`{"env":{"OPENAI_API_KEY":"` + redacttest.EscapeAll("a1b2c3d4e5f6") + `"}}`,
		`{"content":"line\nsk-proj-\u0041b3dEfGh1jKlMnOpQrStUvWx\n"}`,
	} {
		e := MaskEvent(Event{Type: AssistantMessage, Payload: AssistantMessagePayload{
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "bash", Arguments: args}}}})
		got := e.Payload.(AssistantMessagePayload).ToolCalls[0].Arguments
		if got == args || !strings.Contains(got, "[REDACTED:") {
			t.Errorf("arguments %s stored unmasked: %s", args, got)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("arguments %s masked to invalid JSON: %s", args, got)
		}
		// Decoded all the way down, nothing of the key is left.
		decoded := decodeDeep(t, got)
		for _, secret := range []string{redacttest.OpenAI[9:], redacttest.GitHub[4:], "a1b2c3d4e5f6"} {
			if strings.Contains(decoded, secret) {
				t.Errorf("arguments %s still hold %q once decoded: %s", args, secret, decoded)
			}
		}
	}
	raw := json.RawMessage(`{"note":"` + redacttest.EscapeAll(redacttest.Slack) + `"}`)
	if got := MaskEvent(Event{Type: "FromTheFuture", Payload: raw}).Payload.(json.RawMessage); string(got) != `{"note":"[REDACTED:slack_token]"}` {
		t.Errorf("raw payload with escapes masked to %s", got)
	}
}

// decodeDeep decodes JSON, and JSON held in its strings, into one text.
func decodeDeep(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(decodeDeep(t, x) + "\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// BenchmarkMaskEvent masks the events of a typical round: the model's
// call, the tool's output, the answer. Every persisted event pays this.
func BenchmarkMaskEvent(b *testing.B) {
	events := []Event{
		{Type: AssistantMessage, Payload: AssistantMessagePayload{Text: "Let me look.", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "read_file", Arguments: `{"path":"internal/server/handler.go","offset":120}`}}}},
		{Type: ToolResult, Payload: ToolResultPayload{CallID: "c1", Name: "read_file", Content: benchText(4 << 10), Risk: "read"}},
		{Type: TurnCompleted, Payload: TurnCompletedPayload{Reason: StopNatural, Answer: benchText(512)}},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range events {
			_ = MaskEvent(e)
		}
	}
}
