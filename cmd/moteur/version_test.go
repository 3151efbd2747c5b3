package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var out, errOut strings.Builder
	if code := execute(t.Context(), []string{"version"}, envMap(nil), nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := " (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if got := out.String(); !strings.HasPrefix(got, "moteur ") || !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("version line %q", got)
	}

	out.Reset()
	if code := execute(t.Context(), []string{"version", "--json"}, envMap(nil), nil, &out, &errOut); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut.String())
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out.String()), &v); err != nil || v.Version == "" || v.Go != runtime.Version() || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH {
		t.Errorf("version --json %q: %+v %v", out.String(), v, err)
	}
}

func TestHelpListsCommands(t *testing.T) {
	var out, errOut strings.Builder
	if code := execute(t.Context(), []string{"--help"}, envMap(nil), nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, w := range []string{"run", "chat", "sessions", "audit", "version", "--lang"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("help lacks %q:\n%s", w, out.String())
		}
	}
}
