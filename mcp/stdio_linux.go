package mcp

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// reap waits for the leader to exit, kills what is left of its group,
// then reaps the leader. Until it is reaped the leader is a zombie whose
// pid, the group's id, cannot be reused, so the kill cannot reach a
// stranger.
func (p *stdioProc) reap() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	p.exitErr = p.cmd.Wait()
	close(p.exited)
}
