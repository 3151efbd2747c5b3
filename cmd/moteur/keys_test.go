package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/session"
)

// verifyKey checks secret against the harness's database as the server
// would.
func verifyKey(t *testing.T, h *harness, secret string) (apikey.Key, error) {
	t.Helper()
	s, err := apikey.Open(context.Background(), apikey.Config{Path: session.DefaultPath(h.home())})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.Verify(context.Background(), secret)
}

func TestKeysCreateListRm(t *testing.T) {
	h := newHarness(t, noModel)
	if res := h.run(t, "keys", "list"); res.code != 0 || !strings.Contains(res.stdout, "No API key") {
		t.Fatalf("list before any key: exit %d %s %s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(session.DefaultPath(h.home())); !os.IsNotExist(err) {
		t.Errorf("keys list created the database: %v", err)
	}
	res := h.run(t, "keys", "create", "laptop")
	secret := strings.TrimSpace(res.stdout)
	if res.code != 0 || !strings.HasPrefix(secret, "mk_") || strings.Count(res.stdout, "\n") != 1 ||
		!strings.Contains(res.stderr, "shown this once") {
		t.Fatalf("create: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	k, err := verifyKey(t, h, secret)
	if err != nil || k.Name != "laptop" || len(k.Scope.Bases) != 0 || k.Scope.Wait {
		t.Fatalf("verify: %+v %v", k, err)
	}
	res = h.run(t, "keys", "list", "--json")
	var keys []map[string]any
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &keys) != nil || len(keys) != 1 || keys[0]["id"] != k.ID {
		t.Fatalf("list: %s %s", res.stdout, res.stderr)
	}
	if _, ok := keys[0]["secret"]; ok || strings.Contains(res.stdout, secret[len(secret)-20:]) {
		t.Error("list shows the secret")
	}
	res = h.run(t, "keys", "list")
	if !strings.Contains(res.stdout, "laptop") || !strings.Contains(res.stdout, k.ID) || strings.Contains(res.stdout, secret) {
		t.Errorf("list:\n%s", res.stdout)
	}
	if res := h.run(t, "keys", "create", "laptop"); res.code != 2 || !strings.Contains(res.stderr, "already exists") {
		t.Errorf("same name: exit %d %s", res.code, res.stderr)
	}
	res = h.run(t, "keys", "rm", "laptop")
	if res.code != 0 || !strings.Contains(res.stdout, "no longer works") {
		t.Fatalf("rm: exit %d %s", res.code, res.stderr)
	}
	if _, err := verifyKey(t, h, secret); !errors.Is(err, apikey.ErrInvalid) {
		t.Errorf("verify after rm: %v", err)
	}
	if res := h.run(t, "keys", "rm", "laptop"); res.code != 2 || !strings.Contains(res.stderr, "laptop") {
		t.Errorf("rm twice: exit %d %s", res.code, res.stderr)
	}
	if res := h.run(t, "keys", "list"); !strings.Contains(res.stdout, "No API key") {
		t.Errorf("empty list: %s", res.stdout)
	}
}

// TestKeysScope: --kb and --agent limit a key, an agent given by name is
// stored by id, and a base or agent that does not exist makes no key.
func TestKeysScope(t *testing.T) {
	h := newHarness(t, noModel)
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	a := decodeAgent(t, h.run(t, "agents", "create", "support", "--json"))
	res := h.run(t, "keys", "create", "bot", "--kb", "docs", "--agent", "support", "--agent", "builtin-quick-answer",
		"--wait-approvals", "--json")
	var out struct {
		ID, Name, Secret string
		Bases, Agents    []string
		Wait             bool
	}
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &out) != nil {
		t.Fatalf("create: exit %d %s %s", res.code, res.stdout, res.stderr)
	}
	if strings.Join(out.Bases, ",") != "docs" || strings.Join(out.Agents, ",") != a.ID+",builtin-quick-answer" || !out.Wait {
		t.Errorf("scope %+v", out)
	}
	k, err := verifyKey(t, h, out.Secret)
	if err != nil || !k.AllowsBase("docs") || k.AllowsBase("rh") || !k.AllowsAgent(a.ID) || k.AllowsAgent("ag-other") || !k.Scope.Wait {
		t.Errorf("verified %+v %v", k, err)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"unknown base":  {[]string{"k1", "--kb", "nope"}, "nope"},
		"unknown agent": {[]string{"k2", "--agent", "nobody"}, "nobody"},
		"empty name":    {[]string{""}, "key name"},
	} {
		res := h.run(t, append([]string{"keys", "create"}, c.args...)...)
		if res.code == 0 || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stdout, "mk_") {
			t.Errorf("%s: exit %d %s %s", name, res.code, res.stdout, res.stderr)
		}
	}
	res = h.run(t, "keys", "list", "--json")
	var keys []apikey.Key
	if json.Unmarshal([]byte(res.stdout), &keys) != nil || len(keys) != 1 || keys[0].Name != "bot" {
		t.Errorf("keys after refusals: %s", res.stdout)
	}
}
