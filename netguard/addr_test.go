package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

func TestCheckRules(t *testing.T) {
	cases := []struct{ addr, rule string }{
		{"127.0.0.1", RuleLoopback},
		{"127.8.9.10", RuleLoopback},
		{"::1", RuleLoopback},
		{"10.0.0.5", RulePrivate},
		{"172.16.3.4", RulePrivate},
		{"192.168.1.1", RulePrivate},
		{"fc00::1", RulePrivate},
		{"fd12:3456::1", RulePrivate},
		{"169.254.169.254", RuleMetadata},
		{"fd00:ec2::254", RuleMetadata},
		{"100.100.100.200", RuleMetadata},
		{"169.254.1.1", RuleLinkLocal},
		{"fe80::1", RuleLinkLocal},
		{"224.0.0.1", RuleMulticast},
		{"239.1.2.3", RuleMulticast},
		{"ff02::1", RuleMulticast},
		{"0.0.0.0", RuleUnspecified},
		{"0.1.2.3", RuleUnspecified},
		{"::", RuleUnspecified},
		{"100.64.0.1", RuleShared},
		{"100.127.255.254", RuleShared},
		{"255.255.255.255", RuleBroadcast},
		{"::ffff:127.0.0.1", RuleLoopback},
		{"::ffff:10.0.0.1", RulePrivate},
		{"::ffff:169.254.169.254", RuleMetadata},
		{"64:ff9b::7f00:1", RuleLoopback},
		{"93.184.216.34", ""},
		{"100.128.0.1", ""},
		{"2606:4700::1111", ""},
		{"::ffff:93.184.216.34", ""},
	}
	for _, c := range cases {
		err := Check(netip.MustParseAddr(c.addr))
		var re *RefusedError
		switch {
		case c.rule == "" && err != nil:
			t.Errorf("%s: refused (%v), want allowed", c.addr, err)
		case c.rule != "" && !errors.As(err, &re):
			t.Errorf("%s: %v, want refused by %s", c.addr, err, c.rule)
		case c.rule != "" && re.Rule != c.rule:
			t.Errorf("%s: rule %s, want %s", c.addr, re.Rule, c.rule)
		case c.rule != "" && !errors.Is(err, ErrRefused):
			t.Errorf("%s: not ErrRefused", c.addr)
		}
	}
}

func TestCheckMessageNamesRule(t *testing.T) {
	err := Check(netip.MustParseAddr("10.0.0.5"))
	want := "refused: 10.0.0.5 is a private address (allow_private_hosts to allow it)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	err = Check(netip.MustParseAddr("::ffff:127.0.0.1"))
	want = "refused: ::ffff:127.0.0.1 (127.0.0.1) is a loopback address (allow_private_hosts to allow it)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}
