package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTrustStoreRemembersPerRootAndHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "mcp-trust.json")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := NewTrustStore(TrustStoreConfig{Path: path, Now: func() time.Time { return now }})
	root := t.TempDir()
	sum := strings.Repeat("ab", 32)
	if s.Trusted(root, sum) {
		t.Fatal("trusted before Trust")
	}
	if err := s.Trust(root, sum); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(root, sum) || !s.Trusted(root+"/", sum) {
		t.Fatal("not trusted after Trust")
	}
	if s.Trusted(root, strings.Repeat("cd", 32)) {
		t.Fatal("another content is trusted")
	}
	if s.Trusted(t.TempDir(), sum) {
		t.Fatal("another project is trusted")
	}
	// A second store on the same file (another process) agrees.
	if !NewTrustStore(TrustStoreConfig{Path: path}).Trusted(root, sum) {
		t.Fatal("not persisted")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "2026-01-02T03:04:05Z") {
		t.Fatalf("the clock seam was not used: %s", data)
	}
}

func TestTrustStoreKeepsRecentContents(t *testing.T) {
	s := NewTrustStore(TrustStoreConfig{Path: filepath.Join(t.TempDir(), "t.json")})
	root := t.TempDir()
	sums := make([]string, maxTrustedSums+2)
	for i := range sums {
		sums[i] = fmt.Sprintf("%064x", i)
		if err := s.Trust(root, sums[i]); err != nil {
			t.Fatal(err)
		}
	}
	if s.Trusted(root, sums[0]) || !s.Trusted(root, sums[len(sums)-1]) || !s.Trusted(root, sums[2]) {
		t.Fatal("wrong contents kept")
	}
}

func TestTrustStoreCorruptFailsClosed(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "t.json"), "{not json")
	s := NewTrustStore(TrustStoreConfig{Path: path})
	sum := strings.Repeat("ab", 32)
	if s.Trusted(t.TempDir(), sum) {
		t.Fatal("a corrupt store trusts")
	}
	if err := s.Trust(t.TempDir(), sum); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Trust over a corrupt store: %v", err)
	}
	if err := s.Trust(t.TempDir(), "short"); err == nil {
		t.Fatal("a bad sum accepted")
	}
}

func TestUntrustedProjectIsNotStarted(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	exe, _ := os.Executable()
	file := fmt.Sprintf(`{"mcpServers": {"proj": {"command": %q, "env": {"MOTEUR_MCP_TESTSERVER": "ok", "MOTEUR_MCP_TESTSERVER_MARKER": %q}}}}`, exe, marker)
	writeFile(t, filepath.Join(root, ".mcp.json"), file)
	store := NewTrustStore(TrustStoreConfig{Path: filepath.Join(t.TempDir(), "trust.json")})

	l := Load(LoadConfig{ProjectRoot: root, Trust: store})
	m := startTest(t, ManagerConfig{Servers: l.Servers})
	st := statusOf(t, m, "proj")
	if st.State != StateUntrusted || st.Trusted || !strings.Contains(st.Error, "--trust-project") {
		t.Fatalf("status %+v", st)
	}
	if down := m.Down(); len(down) != 1 || !strings.Contains(down[0].Error, "not trusted") {
		t.Fatalf("Down() = %+v", down)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the untrusted command ran (marker: %v)", err)
	}
	m.Close()

	// Trusted: the very same configuration runs the command.
	if err := store.Trust(l.Project.Root, l.Project.SHA256); err != nil {
		t.Fatal(err)
	}
	l = Load(LoadConfig{ProjectRoot: root, Trust: store})
	m = startTest(t, ManagerConfig{Servers: l.Servers})
	if st := statusOf(t, m, "proj"); st.State != StateConnected || !st.Trusted {
		t.Fatalf("trusted status %+v", st)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the trusted command did not run: %v", err)
	}
	m.Close()

	// A changed file is a new question.
	writeFile(t, filepath.Join(root, ".mcp.json"), strings.Replace(file, `"ok"`, `"noisy"`, 1))
	l = Load(LoadConfig{ProjectRoot: root, Trust: store})
	if l.Project.Trusted || serverByName(t, l, "proj").Trusted {
		t.Fatal("a changed file is still trusted")
	}
}
