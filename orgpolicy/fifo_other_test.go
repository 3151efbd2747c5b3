//go:build !unix

package orgpolicy

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
