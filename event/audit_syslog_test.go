//go:build !windows && !plan9

package event

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listenSyslog stands for /dev/log: a unix datagram socket.
func listenSyslog(t *testing.T) (*net.UnixConn, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Skipf("no unix datagram sockets here: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, path
}

// readDatagrams reads the n datagrams already sent to conn. The deadline
// only bounds a failing test: every datagram was sent before the call.
func readDatagrams(t *testing.T, conn *net.UnixConn, n int) []string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var out []string
	buf := make([]byte, 4096)
	for range n {
		k, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("after %d datagrams: %v", len(out), err)
		}
		out = append(out, string(buf[:k]))
	}
	return out
}

func TestSyslogAnchorSendsEachHead(t *testing.T) {
	conn, sock := listenSyslog(t)
	anchor, err := DialSyslogAnchor("unixgram", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer anchor.Close()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Anchor: anchor})
	if err != nil {
		t.Fatal(err)
	}
	st := &testStore{}
	for _, e := range auditEvents(3) {
		st.write(t, a, e)
	}
	a.Close()
	got := readDatagrams(t, conn, 3)
	for i, m := range got {
		want := "moteur-audit"
		if !strings.Contains(m, want) || !strings.HasSuffix(strings.TrimSuffix(m, "\n"),
			`audit head session="s1" index=`+string(rune('0'+i))+" mac="+hexOf(st.heads[i])) {
			t.Errorf("datagram %d: %q", i, m)
		}
		// <authpriv.info>: facility 10, severity 6.
		if !strings.HasPrefix(m, "<86>") {
			t.Errorf("datagram %d has priority %q, want <86> (authpriv.info)", i, m[:4])
		}
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
