package shell

import (
	"slices"
	"strings"
	"sync"
)

// The trial run of the sandbox (probe) starts bubblewrap: a process, a
// user namespace and mounts, for each session a process opens. What it
// finds depends on the kernel, bubblewrap and the project's layout, not on
// the session, so a process keeps its findings for the same bubblewrap,
// root, shell, filter and protected paths — moteur serve opens a session
// for each turn. A failed trial is not kept: the next session tries again.

type probeKey string

var probes sync.Map // probeKey → Isolation

// key names what the trial run of s in root with shell and prot depends on.
func (s sandbox) probeKey(root, shell string, prot protection) probeKey {
	parts := []string{s.bwrap, root, shell, strings.Join(prot.pins, "\x01"), strings.Join(prot.readOnly, "\x01")}
	if s.filter != nil {
		parts = append(parts, "filter")
	}
	return probeKey(strings.Join(parts, "\x00"))
}

// probeOnce is probe, its success remembered for the process.
func (s sandbox) probeOnce(root, shell string, prot protection) (Isolation, error) {
	k := s.probeKey(root, shell, prot)
	if v, ok := probes.Load(k); ok {
		iso := v.(Isolation)
		iso.Seccomp = slices.Clone(iso.Seccomp)
		iso.ReadOnly = slices.Clone(iso.ReadOnly)
		return iso, nil
	}
	iso, err := s.probe(root, shell, prot)
	if err == nil {
		probes.Store(k, iso)
	}
	return iso, err
}
