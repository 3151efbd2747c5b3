package shell

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"

	"github.com/moteur/moteur/tools"
)

// Every name of the policy must be a system call somewhere: a typo would
// be skipped silently as "not on this architecture".
func TestFilterNamesAreSystemCalls(t *testing.T) {
	known := func(name string) bool {
		for _, a := range []*arch.Info{arch.X86_64, arch.AARCH64, arch.I386, arch.ARM} {
			if _, ok := a.SyscallNames[name]; ok {
				return true
			}
		}
		return false
	}
	for _, g := range filterGroups {
		for _, n := range g.calls {
			if !known(n) {
				t.Errorf("group %s: %q is no system call", g.name, n)
			}
		}
		for _, c := range g.when {
			if !known(c.Name) {
				t.Errorf("group %s: %q is no system call", g.name, c.Name)
			}
		}
	}
	// The calls the sandbox promises to refuse, on the architectures CI
	// runs.
	for _, a := range []*arch.Info{arch.X86_64, arch.AARCH64} {
		for _, n := range []string{"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsmount", "fsopen", "fsconfig", "fspick",
			"ptrace", "process_vm_readv", "process_vm_writev", "add_key", "request_key", "keyctl", "init_module", "finit_module", "delete_module",
			"kexec_load", "kexec_file_load", "bpf", "perf_event_open", "unshare", "setns", "clone", "clone3", "swapon", "swapoff", "reboot"} {
			if _, ok := a.SyscallNames[n]; !ok {
				t.Errorf("%s has no %s: the filter cannot refuse it there", a.Name, n)
				continue
			}
			if !inPolicy(n) {
				t.Errorf("%s is not in the policy", n)
			}
		}
	}
}

func inPolicy(name string) bool {
	for _, g := range filterGroups {
		if slices.Contains(g.calls, name) {
			return true
		}
		for _, c := range g.when {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

// The program is struct sock_filter[] and starts by checking the
// architecture, killing the process on another one.
func TestFilterChecksArchitectureFirst(t *testing.T) {
	f, err := buildFilter()
	if err != nil {
		t.Skipf("no filter on this architecture: %v", err)
	}
	if len(f.prog)%8 != 0 || len(f.prog) == 0 {
		t.Fatalf("program is %d bytes, not a whole number of 8-byte instructions", len(f.prog))
	}
	raw := make([]bpf.RawInstruction, len(f.prog)/8)
	for i := range raw {
		b := f.prog[8*i:]
		raw[i] = bpf.RawInstruction{Op: binary.NativeEndian.Uint16(b), Jt: b[2], Jf: b[3], K: binary.NativeEndian.Uint32(b[4:])}
	}
	info, _ := arch.GetInfo("")
	want := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: 0x80000000}, // SECCOMP_RET_KILL_PROCESS
	}
	for i, w := range want {
		if got := raw[i].Disassemble(); got != w {
			t.Errorf("instruction %d = %#v, want %#v", i, got, w)
		}
	}
	if !slices.Contains(f.groups, "mount") || !slices.Contains(f.groups, "namespaces") {
		t.Errorf("groups %v", f.groups)
	}
}

// A control directory under a read-only one is not pinned writable again,
// and .git as a directory is pinned, not made read-only.
func TestProtectLayout(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git/hooks", ".vscode/gd/hooks"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".vscode/gd/config"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A .git/commondir naming a directory under .vscode adds its control
	// paths, which .vscode covers already.
	if err := os.WriteFile(filepath.Join(root, ".git/commondir"), []byte("../.vscode/gd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := protect(root, tools.ControlPaths(root))
	j := func(rel string) string { return filepath.Join(root, rel) }
	if want := []string{j(".git")}; !slices.Equal(p.pins, want) {
		t.Errorf("pins %v, want %v", p.pins, want)
	}
	if want := []string{j(".git/commondir"), j(".git/config"), j(".git/hooks"), j(".vscode")}; !slices.Equal(p.readOnly, want) {
		t.Errorf("readOnly %v, want %v", p.readOnly, want)
	}
}

// BenchmarkCallSetup measures what every sandboxed call adds before and
// after the command: listing and looking at the control paths, the mounts
// to ask for, the filter's pipe (compiled once, at New).
func BenchmarkCallSetup(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := compiledFilter()
	if err != nil {
		b.Skipf("no filter: %v", err)
	}
	sb := sandbox{kind: kindBwrap, bwrap: "/usr/bin/bwrap", filter: &f}
	b.ReportAllocs()
	for b.Loop() {
		paths := tools.ControlPaths(root)
		before := snapshotControl(root, paths)
		inv, err := sb.invocation(root, root, false, "/bin/sh", "true", protect(root, paths))
		if err != nil {
			b.Fatal(err)
		}
		inv.close()
		_ = controlChanges(before, snapshotControl(root, paths))
	}
}
