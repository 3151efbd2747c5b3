package mcp

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/moteur/moteur/smallfile"
)

// Transports a server may use.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // streamable HTTP
	TransportSSE   = "sse"  // the legacy HTTP+SSE transport
)

// File names Load reads.
const (
	// ProjectFileName is read at a project's root.
	ProjectFileName = ".mcp.json"
	// UserFileName is the user's own file in $XDG_CONFIG_HOME/moteur.
	UserFileName = "mcp.json"
)

// maxConfigBytes bounds a configuration file: a bigger one is not a
// configuration anyone wrote by hand.
const maxConfigBytes = 1 << 20

// ServerConfig is one configured server, its strings expanded.
type ServerConfig struct {
	// Name is the key in mcpServers.
	Name string
	// Transport is TransportStdio, TransportHTTP or TransportSSE.
	Transport string

	// Command, Args, Env and Cwd start a stdio server. Env holds only what
	// the configuration names: the child gets those and a minimal base
	// environment (see BaseEnv), never the rest of Moteur's. Cwd, when
	// relative, is resolved against the configuration file's directory.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	// URL and Headers reach an http or sse server.
	URL     string
	Headers map[string]string

	// OAuth is a client registered beforehand with the server's
	// authorization server (`"oauth": {"clientId", "clientSecret",
	// "callbackPort"}`), for `moteur mcp login`; zero: Moteur registers
	// itself dynamically and listens on a port the system picks.
	OAuth OAuthClient

	// Local: declared `"local": true`, the server may receive classified
	// text (the Guard's argument check is skipped for it).
	Local bool
	// Disabled: declared `"disabled": true`; not started.
	Disabled bool
	// StartupTimeout overrides ManagerConfig.StartupTimeout when non-zero
	// (`"startup_timeout_ms"`).
	StartupTimeout time.Duration

	// Source is the file the server was configured in.
	Source string
	// Project: Source is a project's .mcp.json, which arrived with the
	// code.
	Project bool
	// Trusted: the server may be started. The user's own file is always
	// trusted; a project's file once the user trusted its content. The
	// zero value is untrusted, so a ServerConfig built by hand must say so.
	Trusted bool
	// Err, when set, is why the configuration cannot be used (a bad name,
	// an unknown transport, a missing variable); the server is reported
	// down with it and never started.
	Err error
}

// OAuthClient is a pre-registered OAuth client of an HTTP server.
type OAuthClient struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	// CallbackPort is the loopback port of the redirect URI registered
	// with the client (http://127.0.0.1:PORT/callback); 0: any.
	CallbackPort int `json:"callbackPort"`
}

// Info returns what the rest of Moteur knows of the server.
func (s ServerConfig) Info() ServerInfo {
	return ServerInfo{Name: s.Name, Transport: s.Transport, Local: s.Local, Source: s.Source}
}

// ServerInfo is what the rest of Moteur knows of a configured server.
type ServerInfo struct {
	Name      string // the key in mcpServers
	Transport string // "stdio", "http" or "sse"
	Local     bool   // declared `"local": true`: may receive classified text
	Source    string // the file it was configured in
}

// TrustChecker says whether the user trusted a project's file; TrustStore
// implements it.
type TrustChecker interface {
	Trusted(projectRoot, sha256Hex string) bool
}

// LoadConfig says where Load looks. Zero values read nothing and trust
// nothing.
type LoadConfig struct {
	// ProjectRoot: <root>/.mcp.json is read if present; "" for none.
	ProjectRoot string
	// UserFile is the user's file, normally
	// $XDG_CONFIG_HOME/moteur/mcp.json; "" for none.
	UserFile string
	// Trust says whether the project's file was trusted; nil trusts no
	// project file.
	Trust TrustChecker
	// LookupEnv expands ${VAR} in the files; nil expands nothing (every
	// ${VAR} without a default is then an error of its server).
	LookupEnv LookupFunc
}

// Loaded is what Load found.
type Loaded struct {
	// Servers, sorted by name; those with Err set, not Trusted or Disabled
	// are reported by the Manager and not started.
	Servers []ServerConfig
	// Project describes the project's file, nil when there is none.
	Project *ProjectFile
	// Warnings: unknown keys, keys a transport ignores, a name defined in
	// both files. Nothing was refused for them.
	Warnings []string
	// Errors: files that could not be read or parsed, each naming the file
	// and, for a parse error, the line, column and key. The servers of the
	// other file are still in Servers.
	Errors []error
}

// ProjectFile is a project's .mcp.json as Load read it.
type ProjectFile struct {
	Path string
	// Root is the project root the trust is recorded for.
	Root string
	// SHA256 is the hex digest of the bytes parsed: trusting it trusts
	// exactly what was read.
	SHA256  string
	Trusted bool
}

// Load reads the user's file and the project's, expands their variables
// and applies trust. It does not fail: a file that cannot be used is in
// Errors and the other one still counts, so that a broken project file
// does not stop the session. When a name is in both files the user's
// definition wins and the duplicate is in Warnings.
func Load(cfg LoadConfig) Loaded {
	var out Loaded
	byName := map[string]int{}
	add := func(servers []ServerConfig) {
		for _, s := range servers {
			if i, dup := byName[s.Name]; dup {
				out.Warnings = append(out.Warnings, fmt.Sprintf("MCP server %q is defined in both %s and %s; the definition in %s is used",
					s.Name, out.Servers[i].Source, s.Source, out.Servers[i].Source))
				continue
			}
			byName[s.Name] = len(out.Servers)
			out.Servers = append(out.Servers, s)
		}
	}

	if cfg.UserFile != "" {
		if data, err := readConfigFile(cfg.UserFile); err != nil {
			out.Errors = appendIfErr(out.Errors, err)
		} else if data != nil {
			servers, warns, err := parseFile(cfg.UserFile, data, cfg.LookupEnv)
			out.Warnings = append(out.Warnings, warns...)
			out.Errors = appendIfErr(out.Errors, err)
			for i := range servers {
				servers[i].Trusted = true
			}
			add(servers)
		}
	}

	if cfg.ProjectRoot != "" {
		path := filepath.Join(cfg.ProjectRoot, ProjectFileName)
		if samePath(path, cfg.UserFile) {
			path = "" // a project whose root holds the user's file: read once
		}
		data, err := readConfigFile(path)
		out.Errors = appendIfErr(out.Errors, err)
		if data != nil {
			root := canonicalRoot(cfg.ProjectRoot)
			sum := sha256.Sum256(data)
			pf := &ProjectFile{Path: path, Root: root, SHA256: hex.EncodeToString(sum[:])}
			pf.Trusted = cfg.Trust != nil && cfg.Trust.Trusted(root, pf.SHA256)
			out.Project = pf
			servers, warns, err := parseFile(path, data, cfg.LookupEnv)
			out.Warnings = append(out.Warnings, warns...)
			out.Errors = appendIfErr(out.Errors, err)
			for i := range servers {
				servers[i].Project = true
				servers[i].Trusted = pf.Trusted
			}
			add(servers)
		}
	}
	slices.SortFunc(out.Servers, func(a, b ServerConfig) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func appendIfErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// readConfigFile returns nil, nil for a path that is "" or does not exist.
func readConfigFile(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	data, err := smallfile.Read(path, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP configuration %s: %w", path, err)
	}
	return data, nil
}

// canonicalRoot makes a root absolute and resolves its links, so that the
// trust recorded for /work/p holds for /work/p/ and for a link to it.
func canonicalRoot(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return filepath.Clean(root)
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
