package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// Configuration files, the organisation policy, permissions and the
// outbound control, as the commands wire them.

// writeProjectConfig writes the project's .moteur/config.yaml.
func (h *harness) writeProjectConfig(t *testing.T, yaml string) {
	t.Helper()
	dir := filepath.Join(h.dir, ".moteur")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// usePolicy points MOTEUR_POLICY at a policy file holding yaml.
func (h *harness) usePolicy(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env["MOTEUR_POLICY"] = path
	return path
}

// withoutEnvModel leaves the model to the configuration files.
func (h *harness) withoutEnvModel() {
	for _, k := range []string{"MOTEUR_BASE_URL", "MOTEUR_MODEL", "MOTEUR_API_KEY"} {
		delete(h.env, k)
	}
}

// runJSON runs args with --json and returns the events printed.
func (h *harness) runJSON(t *testing.T, args ...string) (result, []event.Event) {
	t.Helper()
	res := h.run(t, append([]string{"run", "--json"}, args...)...)
	return res, decodeLines(t, []byte(res.stdout))
}

// payloads returns the payloads of type P among evs.
func payloads[P any](evs []event.Event) []P {
	var out []P
	for _, e := range evs {
		if p, ok := e.Payload.(P); ok {
			out = append(out, p)
		}
	}
	return out
}

// noStore fails unless home holds no session database.
func noStore(t *testing.T, home string) {
	t.Helper()
	if _, err := os.Stat(session.DefaultPath(home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session database created: %v", err)
	}
}

func TestRunUsesTheProvidersOfTheProjectConfig(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, "")
	h.withoutEnvModel()
	h.writeProjectConfig(t, "lang: en\nproviders:\n  - name: projet\n    base_url: "+srv.BaseURL()+"\n    model: project-model\n    context_window: 64000\n")

	res, evs := h.runJSON(t, "hi")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "project-model" || reqs[0].Auth != "" {
		t.Fatalf("requests %+v, want one for project-model without a key", reqs)
	}
	started := payloads[event.SessionStartedPayload](evs)
	if len(started) != 1 || started[0].Provider != "projet" || started[0].Model != "project-model" ||
		started[0].Lang != "en" || started[0].Mode != "auto_write" {
		t.Errorf("SessionStarted %+v, want provider projet, model project-model, lang en (from the file), mode auto_write", started)
	}
	// A project that chooses where sessions go says so.
	if !strings.HasPrefix(res.stderr, "moteur: note: ") {
		t.Errorf("stderr %q, want the configuration's notice", res.stderr)
	}
}

func TestRunDenyRuleOfTheProjectConfigRefusesACall(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "todo_write", `{"task":"t","todos":[{"content":"a","status":"pending"}]}`),
		openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	h.writeProjectConfig(t, "permissions:\n  deny: [todo_write]\n")

	res, evs := h.runJSON(t, "plan it")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	results := payloads[event.ToolResultPayload](evs)
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content, "Permission denied (deny: todo_write)") {
		t.Errorf("tool results %+v, want todo_write denied by the rule", results)
	}
	if n := len(payloads[event.PermissionRequestedPayload](evs)); n != 0 {
		t.Errorf("%d permission requests for a denied call", n)
	}
	srv.CheckPairing(t)
}

func TestRunModeReadOnlyRefusesAWrite(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)

	res, evs := h.runJSON(t, "--mode", "read_only", "write it")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if ran.Load() != 0 {
		t.Error("test_write ran in read_only mode")
	}
	results := payloads[event.ToolResultPayload](evs)
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content, "mode read_only") {
		t.Errorf("tool results %+v, want test_write denied by the mode", results)
	}
	if s := payloads[event.SessionStartedPayload](evs); len(s) != 1 || s[0].Mode != "read_only" {
		t.Errorf("SessionStarted %+v, want mode read_only", s)
	}
}

func TestRunAllowFlagRunsACallWithoutAsking(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)

	res, evs := h.runJSON(t, "--mode", "confirm", "--allow", "test_write(notes.txt)", "write it")
	if res.code != 0 || !onlySessionLine(res.stderr) {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if ran.Load() != 1 || len(payloads[event.PermissionRequestedPayload](evs)) != 0 {
		t.Errorf("test_write ran %d times, %d requests; want once, unasked", ran.Load(), len(payloads[event.PermissionRequestedPayload](evs)))
	}
}

func TestRunFlagUsageErrors(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--mode", "yolo", "hi"}, `invalid --mode "yolo"`},
		{[]string{"run", "--allow", "test_write([)", "hi"}, `invalid --allow "test_write([)"`},
		{[]string{"chat", "--allow", "", "--lang", "en"}, `invalid --allow ""`},
	} {
		res := h.run(t, tc.args...)
		if res.code != 2 || !strings.HasPrefix(res.stderr, "moteur: ") || !strings.Contains(res.stderr, tc.want) ||
			strings.Count(res.stderr, "--help' for usage") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q with the usage hint", tc.args, res.code, res.stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(h.home()); len(entries) != 0 {
		t.Errorf("a usage error wrote to the data directory: %v", entries)
	}
}

func TestRunPolicyExcludingTheProviderStopsBeforeAnyRequest(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("never"))
	h := newHarness(t, srv.BaseURL())
	path := h.usePolicy(t, "allowed_hosts: [api.mistral.ai]\n")

	res := h.run(t, "run", "hi")
	if res.code != 1 || !strings.HasPrefix(res.stderr, "moteur: ") || !strings.Contains(res.stderr, path) ||
		strings.Count(res.stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and one line naming %s", res.code, res.stderr, path)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached a provider the policy excludes", n)
	}
	noStore(t, h.home())
}

func TestRunUnreadablePolicyFailsClosed(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("never"))
	h := newHarness(t, srv.BaseURL())
	dir := t.TempDir() // a directory is no policy file
	h.env["MOTEUR_POLICY"] = dir

	for _, args := range [][]string{{"run", "hi"}, {"chat"}} {
		res := h.run(t, args...)
		if res.code != 1 || !strings.HasPrefix(res.stderr, "moteur: ") || !strings.Contains(res.stderr, dir) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the policy's path", args, res.code, res.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests without the policy", n)
	}
	noStore(t, h.home())
}

func TestRunModeCannotGoBelowThePolicyFloor(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	path := h.usePolicy(t, "min_mode: confirm\n")
	for _, args := range [][]string{{"run", "--mode", "auto_write", "hi"}, {"chat", "--mode", "auto-write"}} {
		res := h.run(t, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "min_mode confirm") || !strings.Contains(res.stderr, path) ||
			strings.Count(res.stderr, "--help' for usage") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the policy %s", args, res.code, res.stderr, path)
		}
	}
	noStore(t, h.home())
}

func TestRunPolicyFloorMakesAnAllowRuleAsk(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("ok"), openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	path := h.usePolicy(t, "min_mode: confirm\n")

	// The floor itself as --mode, with an allow rule the floor overrides:
	// only a person may confirm a change, and there is no terminal.
	res, evs := h.runJSON(t, "--allow", "test_write", "--mode", "confirm", "write it")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if ran.Load() != 0 {
		t.Error("an allow rule let a write past the organisation's min_mode confirm without asking")
	}
	if n := len(payloads[event.PermissionRequestedPayload](evs)); n != 1 {
		t.Errorf("%d permission requests, want 1", n)
	}
	if !strings.Contains(res.stderr, path) || !strings.Contains(res.stderr, "run moteur in a terminal") {
		t.Errorf("stderr %q, want the hint that only a person in a terminal can confirm", res.stderr)
	}
	// A mode stricter than the floor is accepted.
	if res := h.run(t, "run", "--mode", "read_only", "hi"); res.code != 0 {
		t.Errorf("--mode read_only under min_mode confirm: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestRunClassifiedPromptWithoutLocalProviderIsNotSent(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("never"))
	h := newHarness(t, srv.BaseURL())

	res := h.run(t, "run", "DIFFUSION RESTREINTE : résume le dossier")
	if res.code != 1 || !strings.Contains(res.stderr, "DIFFUSION RESTREINTE") || !strings.Contains(res.stderr, "not sent") ||
		!strings.HasPrefix(res.stderr, "session: ") || strings.Count(res.stderr, "\n") != 2 {
		t.Errorf("exit %d, stderr %q; want 1, the session line and one line naming the marking", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests carried classified content to a remote provider", n)
	}
}

func TestRunClassifiedPromptGoesToTheLocalProvider(t *testing.T) {
	remote := openaitest.NewServer(t)
	local := openaitest.NewServer(t, openaitest.Answer("résumé local"))
	h := newHarness(t, "")
	h.withoutEnvModel()
	h.writeProjectConfig(t, "providers:\n"+
		"  - name: distant\n    base_url: "+remote.BaseURL()+"\n    model: big\n"+
		"  - name: local\n    base_url: "+local.BaseURL()+"\n    model: small\n    local: true\n")

	res := h.run(t, "run", "DIFFUSION RESTREINTE : résume le dossier")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if n := len(remote.Requests()); n != 0 {
		t.Errorf("%d requests to the remote provider", n)
	}
	if reqs := local.Requests(); len(reqs) != 1 || reqs[0].Model != "small" {
		t.Errorf("local requests %+v, want one for model small", reqs)
	}
	if res.stdout != "résumé local\n" {
		t.Errorf("stdout %q", res.stdout)
	}
	for _, want := range []string{
		"moteur: session classified: DIFFUSION RESTREINTE — only local providers from now on\n",
		"moteur: using local (the session is sensitive: local provider)\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr %q lacks %q", res.stderr, want)
		}
	}
}

func TestRunClassifiedPromptGoesToASingleLocalProvider(t *testing.T) {
	local := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, "")
	h.withoutEnvModel()
	h.writeProjectConfig(t, "providers:\n  - name: local\n    base_url: "+local.BaseURL()+"\n    model: small\n    local: true\n")

	res := h.run(t, "run", "DIFFUSION RESTREINTE : résume le dossier")
	if res.code != 0 || len(local.Requests()) != 1 {
		t.Fatalf("exit %d, %d requests, stderr:\n%s", res.code, len(local.Requests()), res.stderr)
	}
	if !strings.Contains(res.stderr, "session classified: DIFFUSION RESTREINTE") {
		t.Errorf("stderr %q, want the classification note", res.stderr)
	}
}
