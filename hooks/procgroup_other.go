//go:build !unix

package hooks

import "os/exec"

// setGroup: without process groups, only the shell itself is killed.
func setGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
