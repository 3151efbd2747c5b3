package hostmatch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func check(t *testing.T, l List, dest string, want bool) {
	t.Helper()
	if got := l.Allows(dest); got != want {
		t.Errorf("list %q: Allows(%q) = %v, want %v", l.Entries(), dest, got, want)
	}
}

func TestExactHost(t *testing.T) {
	l := MustParse("api.mistral.ai")
	for _, d := range []string{
		"api.mistral.ai", "API.Mistral.AI", "api.mistral.ai.", "api.mistral.ai:443", "api.mistral.ai:8080",
		"https://api.mistral.ai/v1", "https://api.mistral.ai", "HTTPS://API.MISTRAL.AI/v1?x=1#f",
		"http://api.mistral.ai:9999/", "https://user:pw@api.mistral.ai/", "https://user@api.mistral.ai/v1",
		" api.mistral.ai ",
	} {
		check(t, l, d, true)
	}
	for _, d := range []string{
		"mistral.ai", "x.api.mistral.ai", "api.mistral.ai.evil.com", "evilapi.mistral.ai",
		"api-mistral.ai", "api.mistral.aii", "https://api.mistral.ai.evil.com/",
		"https://api.mistral.ai@evil.com/", "https://api.mistral.ai:443@evil.com/", "https://evil.com/api.mistral.ai", "https://evil.com?h=api.mistral.ai",
		"https://evil.com#api.mistral.ai", "evil.com/api.mistral.ai", "user@api.mistral.ai",
		"https://evil.com\\@api.mistral.ai/", "", "   ", "api.mistral.ai:", "api.mistral.ai:0", "api.mistral.ai:65536",
		"api.mistral.ai:x", "api .mistral.ai", "//api.mistral.ai/", "https:///api.mistral.ai",
		"https://api.mistral.ai%2eevil.com/", "api.mistral.ai..", "xn--api.mistral.ai",
	} {
		check(t, l, d, false)
	}
}

func TestWildcard(t *testing.T) {
	l := MustParse("*.mistral.ai")
	for _, d := range []string{"api.mistral.ai", "evilapi.mistral.ai", "a.b.mistral.ai", "X.MISTRAL.AI.", "https://api.mistral.ai/v1"} {
		check(t, l, d, true)
	}
	for _, d := range []string{"mistral.ai", "mistral.ai.evil.com", "api.mistral.ai.evil.com", "evilmistral.ai", "https://mistral.ai/", ".mistral.ai", "xmistral.ai"} {
		check(t, l, d, false)
	}
	if e, ok := l.Match("api.mistral.ai"); !ok || e != "*.mistral.ai" {
		t.Errorf("Match = %q, %v", e, ok)
	}
}

func TestPorts(t *testing.T) {
	l := MustParse("llm.local:8080", "127.0.0.1:11434", "[::1]:8443", "*.corp.example:8443", "any.example")
	for _, d := range []string{
		"llm.local:8080", "http://llm.local:8080/v1", "127.0.0.1:11434", "http://127.0.0.1:11434/api",
		"[::1]:8443", "https://[::1]:8443/", "a.corp.example:8443", "https://a.corp.example:8443/",
		"any.example", "any.example:1", "https://any.example/", "http://any.example:65535",
	} {
		check(t, l, d, true)
	}
	for _, d := range []string{
		// An entry with a port needs that port; a destination without one
		// (or with the scheme default) does not qualify.
		"llm.local", "llm.local:8081", "http://llm.local/", "https://llm.local/",
		"127.0.0.1", "127.0.0.1:11435", "http://127.0.0.1/", "::1", "[::1]", "https://[::1]/",
		"a.corp.example", "https://a.corp.example/", "corp.example:8443",
	} {
		check(t, l, d, false)
	}
}

func TestDefaultPorts(t *testing.T) {
	l := MustParse("a.example:443", "b.example:80")
	check(t, l, "https://a.example/", true)
	check(t, l, "wss://a.example/", true)
	check(t, l, "http://a.example/", false)
	check(t, l, "http://b.example/", true)
	check(t, l, "ws://b.example/", true)
	check(t, l, "https://b.example/", false)
	check(t, l, "ftp://a.example/", false) // unknown default port
	check(t, l, "https://a.example:/", true)
}

func TestIPv4AndCIDR(t *testing.T) {
	l := MustParse("10.0.0.5", "192.168.1.0/24", "172.16.0.0/12")
	for _, d := range []string{
		"10.0.0.5", "10.0.0.5:9", "http://10.0.0.5/", "[::ffff:10.0.0.5]:80", "::ffff:10.0.0.5",
		"192.168.1.0", "192.168.1.255", "192.168.1.7:8080", "https://192.168.1.7/",
		"172.16.0.0", "172.31.255.255",
	} {
		check(t, l, d, true)
	}
	for _, d := range []string{
		"10.0.0.6", "10.0.0.4", "192.168.0.255", "192.168.2.0", "172.15.255.255", "172.32.0.0",
		"010.0.0.5", "10.0.0.05", "10.5", "167772165", "0x0a000005", "10.0.0.5.nip.io",
		"[10.0.0.5]", "http://[10.0.0.5]/", "::ffff:10.0.0.6",
	} {
		check(t, l, d, false)
	}
}

func TestIPv6(t *testing.T) {
	l := MustParse("::1", "[2001:db8::1]", "fd00::/8", "[2001:DB8:0:0:0:0:0:2]:8443")
	for _, d := range []string{
		"::1", "[::1]", "[::1]:1234", "0:0:0:0:0:0:0:1", "http://[::1]:8080/", "[0::1]",
		"2001:db8::1", "2001:DB8::1", "[2001:db8:0::1]:443",
		"fd00::", "fd12:3456::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "https://[fd00::1]/",
		"[2001:db8::2]:8443", "https://[2001:db8::2]:8443/",
	} {
		check(t, l, d, true)
	}
	for _, d := range []string{
		"::2", "fc00::1", "fe00::", "[::1", "::1]", "[::1]x", "[fe80::1%25eth0]", "fe80::1%eth0",
		"2001:db8::2", "[2001:db8::2]:8444", "https://[2001:db8::2]/",
	} {
		check(t, l, d, false)
	}
}

func TestIPNeverMatchesHostAndViceVersa(t *testing.T) {
	// A name never matches an address entry (no resolution) ...
	check(t, MustParse("127.0.0.1", "0.0.0.0/0", "::/0"), "localhost", false)
	// ... and an address never matches a name entry, even a numeric-looking wildcard.
	check(t, MustParse("localhost"), "127.0.0.1", false)
	check(t, MustParse("*.in-addr.arpa"), "1.0.0.127.in-addr.arpa", true) // a name, not an address
	check(t, MustParse("0.0.0.0/0"), "1.2.3.4", true)
	check(t, MustParse("0.0.0.0/0"), "::1", false)
	check(t, MustParse("::/0"), "::1", true)
	check(t, MustParse("::/0"), "1.2.3.4", false) // compared unmapped
	check(t, MustParse("::ffff:0:0/96"), "1.2.3.4", true)
}

func TestCIDREdges(t *testing.T) {
	l := MustParse("10.0.0.0/8")
	check(t, l, "10.0.0.0", true)
	check(t, l, "10.255.255.255", true)
	check(t, l, "9.255.255.255", false)
	check(t, l, "11.0.0.0", false)
	check(t, MustParse("10.1.2.3/32"), "10.1.2.3", true)
	check(t, MustParse("10.1.2.3/32"), "10.1.2.4", false)
	check(t, MustParse("::1/128"), "::1", true)
	check(t, MustParse("fd00::/8"), "fe00::", false)
}

func TestTrailingDotAndCase(t *testing.T) {
	l := MustParse("API.Mistral.AI.", "*.Corp.Example.")
	check(t, l, "api.mistral.ai", true)
	check(t, l, "x.corp.example.", true)
	check(t, l, "corp.example", false)
	if got := l.Entries(); !slices.Equal(got, []string{"API.Mistral.AI.", "*.Corp.Example."}) {
		t.Errorf("Entries = %q", got)
	}
}

func TestMatchAndOrder(t *testing.T) {
	l := MustParse("*.mistral.ai", "api.mistral.ai", "10.0.0.0/8")
	if e, ok := l.Match("https://api.mistral.ai/"); !ok || e != "*.mistral.ai" {
		t.Errorf("Match = %q, %v; want the first entry", e, ok)
	}
	if e, ok := l.Match("10.1.1.1"); !ok || e != "10.0.0.0/8" {
		t.Errorf("Match = %q, %v", e, ok)
	}
	if e, ok := l.Match("example.com"); ok || e != "" {
		t.Errorf("Match = %q, %v", e, ok)
	}
}

func TestEmptyAndZero(t *testing.T) {
	var zero List
	if !zero.Empty() || zero.Allows("api.mistral.ai") || len(zero.Entries()) != 0 {
		t.Error("zero List must be empty and allow nothing")
	}
	l, err := Parse(nil)
	if err != nil || !l.Empty() {
		t.Errorf("Parse(nil) = %v, %v", l, err)
	}
	if MustParse("a.example").Empty() {
		t.Error("non-empty list reports Empty")
	}
}

func TestEntriesIsACopy(t *testing.T) {
	l := MustParse("a.example")
	l.Entries()[0] = "evil.example"
	check(t, l, "a.example", true)
	if l.Entries()[0] != "a.example" {
		t.Error("Entries leaked internal state")
	}
}

func TestBadEntries(t *testing.T) {
	for _, tc := range []struct{ entry, why string }{
		{"", "empty entry"},
		{"  ", "empty entry"},
		{"*.", "empty wildcard"},
		{"*", "every host"},
		{"a*.example", "whole first label"},
		{"*.*.example", "whole first label"},
		{"foo.*.example", "whole first label"},
		{"a b", "space"},
		{"a\u00a0b", "space"},
		{"10.0.0.0/33", "bad prefix"},
		{"10.0.0.1/8", "host bits set (did you mean 10.0.0.0/8?)"},
		{"fd00::/129", "bad prefix"},
		{"10.0.0/8", "bad prefix"},
		{"http://x", "a URL, not a host: drop the scheme"},
		{"https://api.mistral.ai/v1", `(write "api.mistral.ai")`},
		{"api.mistral.ai/v1", "drop any path"},
		{"user@host", "not a host"},
		{"host:0", "bad port"},
		{"host:65536", "bad port"},
		{"host:", "empty port"},
		{"host:http", "bad port"},
		{":80", "missing host"},
		{"[::1", `missing "]"`},
		{"[::1]x", "unexpected"},
		{"[10.0.0.1]", "IPv6 addresses only"},
		{"[nothost]", "bad IP address"},
		{"fe80::1%eth0", "zones"},
		{"1:2:3", "bad IP address"},
		{"a..b", "empty label"},
		{".a.example", "empty label"},
		{"exa$mple.com", "invalid character"},
		{"bücher.example", "punycode"},
		{strings.Repeat("a", 64) + ".example", "longer than 63"},
		{strings.Repeat("abcdefghi.", 26) + "com", "longer than 253"},
		{"10.0.0.256", "looks like an IP address"},
		{"127.1", "looks like an IP address"},
		{"010.0.0.1", "looks like an IP address"},
	} {
		_, err := Parse([]string{tc.entry})
		if err == nil {
			t.Errorf("Parse(%q): no error", tc.entry)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, fmt.Sprintf("%q", tc.entry)) || !strings.Contains(msg, tc.why) {
			t.Errorf("Parse(%q) error %q: want it to name the entry and say %q", tc.entry, msg, tc.why)
		}
	}
}

func TestParseReportsEveryBadEntry(t *testing.T) {
	_, err := Parse([]string{"ok.example", "*.", "a b", "10.0.0.0/8"})
	if err == nil || !strings.Contains(err.Error(), `"*."`) || !strings.Contains(err.Error(), `"a b"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse did not panic on a bad entry")
		}
	}()
	MustParse("*.")
}

func FuzzAllows(f *testing.F) {
	for _, s := range []string{
		"api.mistral.ai", "https://user:pw@api.mistral.ai:443/v1", "[::1]:8080", "10.0.0.5", "fd00::1",
		"http://[fe80::1%25eth0]/", "a.b.corp.example.", "*.corp.example", "::ffff:10.0.0.5", "\x00", "[", "]:",
	} {
		f.Add(s)
	}
	l := MustParse("api.mistral.ai", "*.corp.example", "127.0.0.1:11434", "[::1]", "10.0.0.0/8", "fd00::/8", "llm.local:8080")
	f.Fuzz(func(t *testing.T, dest string) {
		e, ok := l.Match(dest)
		if ok != l.Allows(dest) || ok != (e != "") {
			t.Fatalf("Match/Allows disagree on %q", dest)
		}
		// Parse must not panic either, and a parsed entry must allow itself
		// whenever it is a plain host or address (not a wildcard or range).
		if pl, err := Parse([]string{dest}); err == nil && !strings.ContainsAny(dest, "*/") {
			if !pl.Allows(dest) {
				t.Fatalf("entry %q does not allow itself", dest)
			}
		}
	})
}

func BenchmarkAllows(b *testing.B) {
	var entries []string
	for i := range 8 {
		entries = append(entries, fmt.Sprintf("host%d.example.com", i))
	}
	entries = append(entries,
		"*.corp.example", "*.internal.example:8443", "api.mistral.ai", "api.openai.com",
		"127.0.0.1:11434", "[::1]:11434", "10.0.0.0/8", "192.168.0.0/16", "fd00::/8", "llm.local:8080",
		"10.20.30.40", "models.example.org",
	)
	l := MustParse(entries...)
	if len(l.Entries()) != 20 {
		b.Fatalf("want 20 entries, have %d", len(l.Entries()))
	}
	for _, d := range []string{"https://models.example.org/v1/chat", "api.mistral.ai:443", "192.168.4.4", "evil.example.net"} {
		b.Run(d, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l.Allows(d)
			}
		})
	}
}
