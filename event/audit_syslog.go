//go:build !windows && !plan9

package event

import (
	"fmt"
	"log/syslog"
)

// SyslogAnchor sends the head of each audit record to syslog (journald
// reads the same socket), a copy kept off the data directory: whoever
// replaces both a log and the store's heads leaves the heads that were
// logged there. Each message, at priority authpriv.info with the tag
// moteur-audit, reads
//
//	audit head session="ID" index=N mac=M
//
// moteur audit verify does not read them back: an auditor compares the last
// one of a session with its log.
type SyslogAnchor struct{ w *syslog.Writer }

var _ AuditAnchor = (*SyslogAnchor)(nil)

// DialSyslogAnchor connects to a syslog daemon, network and addr as
// log/syslog.Dial takes them: "" and "" for the local one (/dev/log), or
// "unixgram", "udp", "tcp" and an address.
func DialSyslogAnchor(network, addr string) (*SyslogAnchor, error) {
	w, err := syslog.Dial(network, addr, syslog.LOG_AUTHPRIV|syslog.LOG_INFO, "moteur-audit")
	if err != nil {
		return nil, fmt.Errorf("audit heads to syslog: %w", err)
	}
	return &SyslogAnchor{w: w}, nil
}

// Anchor sends one head. log/syslog reconnects once when the daemon went
// away; a second failure is returned.
func (s *SyslogAnchor) Anchor(sessionID string, index uint64, mac string) error {
	if err := s.w.Info(fmt.Sprintf("audit head session=%q index=%d mac=%s", sessionID, index, mac)); err != nil {
		return fmt.Errorf("audit heads to syslog: %w", err)
	}
	return nil
}

// Close closes the connection.
func (s *SyslogAnchor) Close() error { return s.w.Close() }
