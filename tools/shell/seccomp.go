package shell

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// The seccomp filter is defence in depth under the missing capabilities:
// a command in the sandbox has none, so mount, ptrace of another user's
// process or module loading fail already; the filter also refuses the
// calls through which a process regains capabilities (a new user namespace)
// and the kernel interfaces that have been the way out of sandboxes before
// (keyrings shared per uid, bpf, perf, io_uring). A refused call fails with
// EPERM, as it would for an unprivileged user, so programs report it
// instead of crashing.

// Bits of the arguments the filter looks at. O_TMPFILE's own bit
// (__O_TMPFILE) is the same on every architecture the filter supports.
const (
	setIDBits    = syscall.S_ISUID | syscall.S_ISGID
	oTmpfileBit  = 0o20000000
	newNamespace = syscall.CLONE_NEWNS | syscall.CLONE_NEWCGROUP | syscall.CLONE_NEWUTS |
		syscall.CLONE_NEWIPC | syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET
)

// filterGroup is a set of system calls the filter refuses, named for
// SessionStarted and the tool's description.
type filterGroup struct {
	name  string
	calls []string                     // refused whatever their arguments
	when  []seccomp.NameWithConditions // refused when the conditions hold
	// errno is the error returned; EPERM when zero.
	errno syscall.Errno
}

// filterGroups is the policy. Names a given architecture lacks (umount
// and open exist on x86 only, say) are skipped for it: a call that does not
// exist there cannot be made.
var filterGroups = []filterGroup{
	{name: "mount", calls: []string{
		"mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "open_tree_attr",
		"fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	}},
	{name: "namespaces", calls: []string{"unshare", "setns"}, when: []seccomp.NameWithConditions{
		{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespace}}},
	}},
	// clone3 passes its flags in a structure the filter cannot read: it
	// fails with ENOSYS, on which the C library falls back to clone, whose
	// flags the rule above checks.
	{name: "namespaces", calls: []string{"clone3"}, errno: syscall.ENOSYS},
	{name: "ptrace", calls: []string{"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"}},
	// Keyrings are per uid: as root, the sandbox's uid is root's outside.
	{name: "keyring", calls: []string{"add_key", "request_key", "keyctl"}},
	{name: "kernel_modules", calls: []string{"init_module", "finit_module", "delete_module"}},
	{name: "kexec", calls: []string{"kexec_load", "kexec_file_load"}},
	{name: "bpf", calls: []string{"bpf"}},
	{name: "perf", calls: []string{"perf_event_open"}},
	// io_uring performs opens and connects that no system call filter
	// sees, the setuid rule below among them.
	{name: "io_uring", calls: []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}},
	{name: "swap", calls: []string{"swapon", "swapoff"}},
	{name: "reboot", calls: []string{"reboot"}},
	// A setuid or setgid file written in the project would keep its bit on
	// the host, where another local user could run it with the sandbox's
	// uid outside — root's, when Moteur runs as root.
	{name: "setuid_files", when: setIDRules()},
	// openat2 passes its mode in a structure: ENOSYS, and programs fall
	// back to openat.
	{name: "setuid_files", calls: []string{"openat2"}, errno: syscall.ENOSYS},
}

// setIDRules refuses to give a file the setuid or setgid bit: by chmod, or
// by creating it with the bit set.
func setIDRules() []seccomp.NameWithConditions {
	mode := func(name string, arg uint32) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: arg, Operation: seccomp.BitsSet, Value: setIDBits},
		}}
	}
	create := func(name string, flags, arg uint32, bit uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: flags, Operation: seccomp.BitsSet, Value: bit},
			{Argument: arg, Operation: seccomp.BitsSet, Value: setIDBits},
		}}
	}
	return []seccomp.NameWithConditions{
		mode("chmod", 1), mode("fchmod", 1), mode("fchmodat", 2), mode("fchmodat2", 2),
		mode("creat", 1), mode("mknod", 1), mode("mknodat", 2),
		create("open", 1, 2, syscall.O_CREAT), create("open", 1, 2, oTmpfileBit),
		create("openat", 2, 3, syscall.O_CREAT), create("openat", 2, 3, oTmpfileBit),
	}
}

// filter is the compiled seccomp program and what it refuses.
type filter struct {
	prog   []byte   // struct sock_filter[], native endian, as bwrap reads it
	groups []string // names of the refused groups, in policy order
}

// maxFilterBytes bounds the program: it is written whole into a pipe before
// bwrap starts, and one page is the least a pipe holds.
const maxFilterBytes = 4096

// buildFilter compiles the policy for the architecture Moteur runs on. It
// fails where the policy cannot be expressed (an architecture the
// assembler has no system call table for).
func buildFilter() (filter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return filter{}, fmt.Errorf("seccomp filter: %w", err)
	}
	pol := seccomp.Policy{DefaultAction: seccomp.ActionAllow}
	var f filter
	for _, g := range filterGroups {
		sg := seccomp.SyscallGroup{Action: seccomp.ActionErrno}
		if g.errno != 0 {
			sg.Action = seccomp.ActionErrno | seccomp.Action(g.errno)
		}
		for _, name := range g.calls {
			if _, ok := info.SyscallNames[name]; ok {
				sg.Names = append(sg.Names, name)
			}
		}
		for _, c := range g.when {
			if _, ok := info.SyscallNames[c.Name]; ok {
				sg.NamesWithCondtions = append(sg.NamesWithCondtions, c)
			}
		}
		if len(sg.Names)+len(sg.NamesWithCondtions) == 0 {
			continue
		}
		pol.Syscalls = append(pol.Syscalls, sg)
		if len(f.groups) == 0 || f.groups[len(f.groups)-1] != g.name {
			f.groups = append(f.groups, g.name)
		}
	}
	body, err := pol.Assemble()
	if err != nil {
		return filter{}, fmt.Errorf("seccomp filter: %w", err)
	}
	// The assembler lets a call of another architecture through to the
	// default action (allow): an x86-64 process may still make i386 calls
	// (int 0x80), numbered differently, which would pass every rule. They
	// are refused first, whole: the process is killed rather than left
	// with every call failing.
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionKillProcess)},
	}, body...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return filter{}, fmt.Errorf("seccomp filter: %w", err)
	}
	f.prog = make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		f.prog = binary.NativeEndian.AppendUint16(f.prog, in.Op)
		f.prog = append(f.prog, in.Jt, in.Jf)
		f.prog = binary.NativeEndian.AppendUint32(f.prog, in.K)
	}
	if len(f.prog) > maxFilterBytes {
		return filter{}, fmt.Errorf("seccomp filter: %d bytes, more than the %d a pipe is sure to hold", len(f.prog), maxFilterBytes)
	}
	return f, nil
}

// file returns a pipe's read end holding the program, for bwrap's
// --seccomp: the write end is closed, so bwrap reads it to the end. The
// caller closes it once the child has started.
func (f filter) file() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter pipe: %w", err)
	}
	_, werr := w.Write(f.prog)
	cerr := w.Close()
	if werr != nil || cerr != nil {
		_ = r.Close()
		return nil, fmt.Errorf("seccomp filter pipe: %w", firstErr(werr, cerr))
	}
	return r, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
