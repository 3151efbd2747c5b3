package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/internal/npmtest"
)

// expectedFailures are the client auth scenarios of the suite this client
// does not pass, and why.
var expectedFailures = map[string]string{
	// The authorization server at the server's root publishes metadata
	// whose issuer has a path (…/oauth); RFC 8414 §3.3 wants the issuer to
	// be the URL the metadata was fetched for, and the go-sdk refuses it
	// (its own conformance client fails this scenario the same way).
	"auth/2025-03-26-oauth-metadata-backcompat": "issuer mismatch refused (RFC 8414 §3.3, go-sdk)",
	// Extensions for machines, not users: the client credentials grant
	// (client secret or private-key JWT) and enterprise cross-app access
	// (token exchange, JWT bearer grant). `moteur mcp login` is the
	// authorization code flow of a person.
	"auth/client-credentials-jwt":           "client_credentials grant not implemented",
	"auth/client-credentials-basic":         "client_credentials grant not implemented",
	"auth/cross-app-access-complete-flow":   "token exchange / JWT bearer grant not implemented",
	"auth/enterprise-managed-authorization": "not implemented",
}

// TestConformanceAuthScenarios runs every client auth scenario of
// @modelcontextprotocol/conformance against this program, which logs in
// with package oauth.
func TestConformanceAuthScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the conformance suite in -short mode")
	}
	node, suite := npmtest.Conformance(t)

	bin := filepath.Join(t.TempDir(), "conformanceauth")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	list, err := exec.Command(node, suite, "list", "--client").Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	scenarios := regexp.MustCompile(`auth/[a-z0-9-]+`).FindAllString(string(list), -1)
	if len(scenarios) == 0 {
		t.Fatalf("the suite lists no auth scenario:\n%s", list)
	}
	for _, sc := range scenarios {
		t.Run(strings.TrimPrefix(sc, "auth/"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--scenario", sc)
			cmd.Dir = t.TempDir() // the suite writes its results here
			out, _ := cmd.CombinedOutput()
			passed := strings.Contains(string(out), "OVERALL: PASSED")
			why, expected := expectedFailures[sc]
			switch {
			case passed && expected:
				t.Logf("%s now passes (listed as failing: %s); take it off the list", sc, why)
			case !passed && expected:
				t.Logf("%s fails as expected: %s", sc, why)
			case !passed:
				t.Fatalf("%s failed:\n%s", sc, tail(string(out), 60))
			}
		})
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
