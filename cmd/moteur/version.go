package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
var version string

// versionInfo is what `moteur version` reports.
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// currentVersion prefers the link-time version, then the module version `go
// install module@version` records, then "dev" for a local build.
func currentVersion() versionInfo {
	v := version
	if v == "" {
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	if v == "" {
		v = "dev"
	}
	return versionInfo{Version: v, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

func (c *cli) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of moteur",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := currentVersion()
			if asJSON {
				b, err := json.Marshal(v)
				if err != nil {
					return failure(fmt.Errorf("encode version: %w", err))
				}
				_, err = fmt.Fprintf(c.stdout, "%s\n", b)
				return failure(err)
			}
			_, err := fmt.Fprintf(c.stdout, "moteur %s (%s, %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
			return failure(err)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as a JSON object")
	return cmd
}
