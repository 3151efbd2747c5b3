//go:build windows || plan9

package event

import "errors"

// SyslogAnchor is not available on this system: DialSyslogAnchor fails.
type SyslogAnchor struct{}

var _ AuditAnchor = (*SyslogAnchor)(nil)

// DialSyslogAnchor fails: log/syslog is not available on this system.
func DialSyslogAnchor(network, addr string) (*SyslogAnchor, error) {
	return nil, errors.New("audit heads to syslog: syslog is not available on this system")
}

// Anchor fails.
func (*SyslogAnchor) Anchor(string, uint64, string) error {
	return errors.New("audit heads to syslog: syslog is not available on this system")
}

// Close does nothing.
func (*SyslogAnchor) Close() error { return nil }
