//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// setGroup puts the hook in a process group of its own, so that a timeout
// kills what it started too (a script's sleep, a pipeline).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	// The group id is the shell's pid (Setpgid with Pgid 0).
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
