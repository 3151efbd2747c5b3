package shell_test

import (
	"reflect"
	"testing"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/shell"
)

// asOptional finds the optional interfaces the way the engine does: on a
// tools.Tool, by type assertion.
func asOptional(t *testing.T, e *shell.Exec) (tools.Isolated, tools.NetworkGranter) {
	t.Helper()
	var tl tools.Tool = e
	iso, ok := tl.(tools.Isolated)
	if !ok {
		t.Fatal("shell_exec does not implement tools.Isolated")
	}
	ng, ok := tl.(tools.NetworkGranter)
	if !ok {
		t.Fatal("shell_exec does not implement tools.NetworkGranter")
	}
	return iso, ng
}

// wantSandbox is what SessionStarted must record for e: its Describe and
// its Isolation, field by field.
func wantSandbox(e *shell.Exec) effect.Sandbox {
	kind, detail := e.Describe()
	iso := e.Isolation()
	return effect.Sandbox{Kind: kind, Detail: detail, UserNamespace: iso.UserNamespace, UID: iso.UID,
		Capabilities: iso.Capabilities, NoNewPrivs: iso.NoNewPrivs, Seccomp: iso.Seccomp, ReadOnly: iso.ReadOnly}
}

func TestSandboxReportsIsolationWithoutBwrap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, tc := range []struct {
		name, mode, bwrap, kind string
	}{
		{"none", shell.SandboxNone, "", "none"},
		{"auto without bwrap", shell.SandboxAuto, "/nonexistent/bin/bwrap", "none"},
		{"bwrap required but missing", shell.SandboxBwrap, "/nonexistent/bin/bwrap", "unavailable"},
	} {
		e := newWithBwrap(t, root, tc.mode, tc.bwrap)
		iso, ng := asOptional(t, e)
		got := iso.Sandbox()
		if got.Kind != tc.kind || got.Detail == "" {
			t.Errorf("%s: Sandbox() = %+v, want kind %q with a detail", tc.name, got, tc.kind)
		}
		if !reflect.DeepEqual(got, wantSandbox(e)) {
			t.Errorf("%s: Sandbox() = %+v, want %+v", tc.name, got, wantSandbox(e))
		}
		if got.UserNamespace || got.NoNewPrivs || got.Seccomp != nil || got.ReadOnly != nil || got.Network {
			t.Errorf("%s: Sandbox() claims isolation it does not have: %+v", tc.name, got)
		}
		// Unsandboxed commands have the network already; unavailable ones
		// run nothing: no approval may offer "allow with network".
		if ng.GrantsNetwork() {
			t.Errorf("%s: GrantsNetwork() = true without the sandbox", tc.name)
		}
	}
}

// fakeProbe is a bwrap whose trial run finds every guarantee: what the
// sandbox reports is then known without bubblewrap installed.
const fakeProbe = "#!/bin/sh\nprintf 'Uid:\\t65534 65534 65534 65534\\nCapEff:\\t0000000000000000\\nCapPrm:\\t0000000000000000\\nCapBnd:\\t0000000000000000\\nCapInh:\\t0000000000000000\\nCapAmb:\\t0000000000000000\\nNoNewPrivs:\\t1\\nSeccomp:\\t2\\nUidMap:\\t65534 1000 1\\n'\n"

func TestSandboxReportsBwrapIsolation(t *testing.T) {
	t.Parallel()
	e := newWithBwrap(t, t.TempDir(), shell.SandboxBwrap, fakeBwrap(t, fakeProbe))
	checkBwrapSandbox(t, e, 65534)
}

func TestSandboxReportsRealBwrapIsolation(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	checkBwrapSandbox(t, e, e.Isolation().UID)
}

func checkBwrapSandbox(t *testing.T, e *shell.Exec, uid int) {
	t.Helper()
	iso, ng := asOptional(t, e)
	got := iso.Sandbox()
	if got.Kind != "bwrap" || got.Detail == "" || !got.UserNamespace || got.UID != uid || !got.NoNewPrivs ||
		got.Capabilities != "none" || len(got.Seccomp) == 0 {
		t.Errorf("Sandbox() = %+v, want bwrap with its isolation", got)
	}
	if !reflect.DeepEqual(got, wantSandbox(e)) {
		t.Errorf("Sandbox() = %+v, want %+v", got, wantSandbox(e))
	}
	if got.Network {
		t.Error("Sandbox() reports the network: commands get it only call by call")
	}
	if !ng.GrantsNetwork() {
		t.Error("GrantsNetwork() = false inside bwrap: approvals could not offer the network")
	}
	// The slices are the caller's: changing them changes nothing inside.
	got.Seccomp[0] = "changed"
	if iso.Sandbox().Seccomp[0] == "changed" {
		t.Error("Sandbox() shares its Seccomp slice with the tool")
	}
}
