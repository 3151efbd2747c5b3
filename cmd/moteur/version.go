package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
var version string

// versionInfo is what `moteur version` and `moteur --version` report.
type versionInfo struct {
	Version string `json:"version"`
	// Revision, Time and Modified are the commit the binary was built
	// from, its time, and whether the checkout had uncommitted changes:
	// the VCS stamp go build records in a git checkout (empty without).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// currentVersion is the version of this binary, from its build
// information.
func currentVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf prefers the link-time version linked, then the module version
// that go build or go install recorded in bi (nil: none), then "dev"; the
// VCS stamp of bi comes with it.
func versionOf(linked string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: linked, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		if v.Version == "" {
			v.Version = "dev"
		}
		return v
	}
	if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the version line without the program's name: "v1.2.3
// (commit 0123456789ab, 2026-12-01T10:00:00Z, modified; go1.26.8,
// linux/amd64)", the commit part only when the build recorded one.
func (v versionInfo) String() string {
	var parts []string
	if v.Revision != "" {
		parts = append(parts, "commit "+v.Revision[:min(12, len(v.Revision))])
		if v.Time != "" {
			parts = append(parts, v.Time)
		}
		if v.Modified {
			parts = append(parts, "modified")
		}
	}
	platform := fmt.Sprintf("%s, %s/%s", v.Go, v.OS, v.Arch)
	if len(parts) == 0 {
		return fmt.Sprintf("%s (%s)", v.Version, platform)
	}
	return fmt.Sprintf("%s (%s; %s)", v.Version, strings.Join(parts, ", "), platform)
}

func (c *cli) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: c.tr("Print the version of moteur and the commit it was built from"),
		Args:  c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := currentVersion()
			if asJSON {
				b, err := json.Marshal(v)
				if err != nil {
					return failure(fmt.Errorf(c.tr("encode version: %w"), err))
				}
				_, err = fmt.Fprintf(c.stdout, "%s\n", b)
				return failure(err)
			}
			_, err := fmt.Fprintf(c.stdout, "moteur %s\n", v)
			return failure(err)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the version as a JSON object"))
	return cmd
}
