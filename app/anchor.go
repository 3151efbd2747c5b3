package app

import (
	"errors"
	"strings"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

// auditAnchor is the copy of the audit heads MOTEUR_AUDIT_SYSLOG asks for,
// off the data directory: unset, "" or "off" for none (the default); "on"
// for the local syslog (/dev/log, which journald reads); NETWORK:ADDRESS
// (unixgram:/path, udp:host:514, tcp:host:514) for another. Once asked for,
// a head that cannot be sent stops the turn, as the log's own failure does.
func auditAnchor(env func(string) string, lang i18n.Lang) (*event.SyslogAnchor, error) {
	v := env("MOTEUR_AUDIT_SYSLOG")
	switch v {
	case "", "off":
		return nil, nil
	case "on":
		return event.DialSyslogAnchor("", "")
	}
	network, addr, ok := strings.Cut(v, ":")
	if !ok || addr == "" {
		return nil, errors.New(i18n.Trf(lang, "MOTEUR_AUDIT_SYSLOG=%q: want on, off, or NETWORK:ADDRESS (unixgram:/dev/log, udp:host:514)", v))
	}
	return event.DialSyslogAnchor(network, addr)
}
