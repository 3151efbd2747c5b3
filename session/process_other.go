//go:build !unix

package session

// processAlive cannot tell on this system: a lease of a dead process is
// taken over only once its heartbeat is stale.
func processAlive(pid int) bool { return true }
