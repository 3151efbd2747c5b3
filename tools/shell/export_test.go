package shell

import "time"

// SetKillGrace shortens the SIGTERM-to-SIGKILL grace so that the tests of
// processes ignoring SIGTERM take a fraction of a second, not two.
func (e *Exec) SetKillGrace(d time.Duration) { e.grace = d }
