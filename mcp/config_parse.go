package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// ConfigError is a problem at a place in a configuration file.
type ConfigError struct {
	File      string
	Line, Col int // 1-based; 0 when unknown
	// Key is the path of the key, "mcpServers.github.args"; "" for the
	// file as a whole.
	Key string
	Msg string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// member is one key of a JSON object and its raw value, with where they
// start in the file.
type member struct {
	key    string
	keyOff int
	val    json.RawMessage
	valOff int
}

// fileParser reads one configuration file.
type fileParser struct {
	path   string
	data   []byte
	lookup LookupFunc
	warns  []string
}

func (p *fileParser) errAt(off int, key, format string, a ...any) *ConfigError {
	line, col := position(p.data, off)
	return &ConfigError{File: p.path, Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, a...)}
}

func (p *fileParser) warnAt(off int, key, format string, a ...any) {
	p.warns = append(p.warns, p.errAt(off, key, format, a...).Error())
}

// parseFile parses a whole file. A syntax error or a wrong shape of the
// file is the returned error and no server comes from it; a problem of one
// server is that server's Err.
func parseFile(path string, data []byte, lookup LookupFunc) ([]ServerConfig, []string, error) {
	p := &fileParser{path: path, data: data, lookup: lookup}
	if len(bytes.TrimSpace(data)) == 0 {
		p.warns = append(p.warns, path+": empty file, no MCP server configured")
		return nil, p.warns, nil
	}
	if err := p.checkSyntax(); err != nil {
		return nil, p.warns, err
	}
	top, err := p.members(data, 0, "")
	if err != nil {
		return nil, p.warns, err
	}
	var servers []ServerConfig
	found := false
	for _, m := range top {
		switch m.key {
		case "mcpServers":
			if found {
				return nil, p.warns, p.errAt(m.keyOff, "mcpServers", "defined twice")
			}
			found = true
			list, err := p.members(m.val, m.valOff, "mcpServers")
			if err != nil {
				return nil, p.warns, err
			}
			servers = p.servers(list)
		case "servers":
			p.warnAt(m.keyOff, m.key, "unknown key ignored (Moteur reads \"mcpServers\", the key Claude Code and others write)")
		default:
			p.warnAt(m.keyOff, m.key, "unknown key ignored")
		}
	}
	if !found {
		p.warns = append(p.warns, path+`: no "mcpServers" key, no MCP server configured`)
	}
	return servers, p.warns, nil
}

// checkSyntax reports the first syntax error with its line and column.
func (p *fileParser) checkSyntax() error {
	var v any
	err := json.Unmarshal(p.data, &v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		// The offset is that of the byte after the one in error.
		return p.errAt(int(max(se.Offset-1, 0)), "", "invalid JSON: %v", se)
	default:
		return p.errAt(len(p.data), "", "invalid JSON: %v", err)
	}
}

// members splits a JSON object (already known to be valid JSON) into its
// keys. A value that is not an object is an error at key.
func (p *fileParser) members(raw []byte, base int, key string) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	start := skipSpace(raw, 0)
	tok, err := dec.Token()
	if err != nil {
		return nil, p.errAt(base+start, key, "invalid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.errAt(base+start, key, "want an object, found %s", describeJSON(raw[start:]))
	}
	var out []member
	for dec.More() {
		keyOff := skipSeparators(raw, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, p.errAt(base+keyOff, key, "invalid JSON: %v", err)
		}
		k, _ := tok.(string)
		valOff := skipSeparators(raw, int(dec.InputOffset()))
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, p.errAt(base+valOff, joinKey(key, k), "invalid JSON: %v", err)
		}
		out = append(out, member{key: k, keyOff: base + keyOff, val: val, valOff: base + valOff})
	}
	return out, nil
}

// servers reads each entry of mcpServers; a name given twice is an error
// of that name (which of the two was meant is not ours to guess).
func (p *fileParser) servers(list []member) []ServerConfig {
	seen := map[string]int{}
	var out []ServerConfig
	for _, m := range list {
		if i, dup := seen[m.key]; dup {
			line, _ := position(p.data, list[i].keyOff)
			out[i].Err = p.errAt(m.keyOff, "mcpServers."+m.key, "defined twice in this file (also at line %d)", line)
			continue
		}
		seen[m.key] = len(out)
		out = append(out, p.server(m))
	}
	return out
}

// server reads one server; its first problem becomes its Err.
func (p *fileParser) server(m member) ServerConfig {
	key := "mcpServers." + m.key
	s := ServerConfig{Name: m.key, Source: p.path}
	if err := checkServerName(m.key); err != nil {
		s.Err = p.errAt(m.keyOff, key, "%v", err)
		return s
	}
	fields, err := p.members(m.val, m.valOff, key)
	if err != nil {
		s.Err = err
		return s
	}
	at := map[string]member{}
	var typ string
	for _, f := range fields {
		fk := joinKey(key, f.key)
		if _, dup := at[f.key]; dup {
			s.Err = p.errAt(f.keyOff, fk, "defined twice")
			return s
		}
		at[f.key] = f
		var err error
		switch f.key {
		case "type", "transport":
			err = p.decode(f, fk, &typ, "a string")
		case "command":
			err = p.decode(f, fk, &s.Command, "a string")
		case "args":
			err = p.decode(f, fk, &s.Args, "an array of strings")
		case "env":
			err = p.decode(f, fk, &s.Env, "an object of strings")
		case "cwd":
			err = p.decode(f, fk, &s.Cwd, "a string")
		case "url":
			err = p.decode(f, fk, &s.URL, "a string")
		case "headers":
			err = p.decode(f, fk, &s.Headers, "an object of strings")
		case "local":
			err = p.decode(f, fk, &s.Local, "true or false")
		case "disabled":
			err = p.decode(f, fk, &s.Disabled, "true or false")
		case "oauth":
			if err = p.decode(f, fk, &s.OAuth, `an object {"clientId", "clientSecret", "callbackPort"}`); err == nil &&
				(s.OAuth.CallbackPort < 0 || s.OAuth.CallbackPort > 65535) {
				err = p.errAt(f.valOff, fk+".callbackPort", "want a port number, 1 to 65535")
			}
		case "startup_timeout_ms":
			var ms int64
			if err = p.decode(f, fk, &ms, "a whole number of milliseconds"); err == nil {
				if ms <= 0 {
					err = p.errAt(f.valOff, fk, "want a positive number of milliseconds")
				}
				s.StartupTimeout = time.Duration(ms) * time.Millisecond
			}
		default:
			p.warnAt(f.keyOff, fk, "unknown key ignored")
		}
		if err != nil {
			s.Err = err
			return s
		}
	}
	if s.Err = p.resolveTransport(&s, typ, m, at); s.Err != nil {
		return s
	}
	s.Err = p.expandAll(&s, key, at)
	if s.Err == nil && s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
		s.Cwd = filepath.Join(filepath.Dir(p.path), s.Cwd)
	}
	return s
}

// decode reads f's value into v; a wrong type names what was wanted, at
// the element in error when it is inside an array or an object.
func (p *fileParser) decode(f member, key string, v any, want string) error {
	err := json.Unmarshal(f.val, v)
	if err == nil {
		return nil
	}
	off := f.valOff
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Offset > 0 && int(te.Offset) <= len(f.val) {
			// The offset is just past the value in error: find its start.
			off = f.valOff + valueStartBefore(f.val, int(te.Offset))
		}
		if te.Field != "" {
			key += "." + te.Field
		}
		return p.errAt(off, key, "want %s, found %s", want, te.Value)
	}
	return p.errAt(off, key, "want %s: %v", want, err)
}

// resolveTransport sets s.Transport from "type", or from which of command
// and url is set, and checks that the transport has what it needs.
func (p *fileParser) resolveTransport(s *ServerConfig, typ string, m member, at map[string]member) error {
	key := "mcpServers." + m.key
	if f, ok := at["type"]; ok || typ != "" {
		if !ok {
			f = at["transport"]
		}
		t, known := transportAliases[typ]
		if !known {
			return p.errAt(f.valOff, joinKey(key, f.key), "unknown transport %q (want stdio, http or sse)", typ)
		}
		s.Transport = t
	} else {
		switch {
		case s.Command != "" && s.URL != "":
			return p.errAt(m.keyOff, key, `both "command" and "url" are set: say which with "type"`)
		case s.Command != "":
			s.Transport = TransportStdio
		case s.URL != "":
			s.Transport = TransportHTTP
		default:
			return p.errAt(m.keyOff, key, `neither "command" (a program to run) nor "url" (an HTTP server) is set`)
		}
	}
	ignored := []string{"url", "headers", "oauth"}
	if s.Transport != TransportStdio {
		ignored = []string{"command", "args", "env", "cwd"}
	}
	for _, k := range ignored {
		if f, ok := at[k]; ok {
			p.warnAt(f.keyOff, joinKey(key, k), "ignored for a %s server", s.Transport)
		}
	}
	if s.Transport == TransportStdio && s.Command == "" {
		return p.errAt(m.keyOff, key, `a stdio server needs "command"`)
	}
	if s.Transport != TransportStdio && s.URL == "" {
		return p.errAt(m.keyOff, key, `an %s server needs "url"`, s.Transport)
	}
	return nil
}

var transportAliases = map[string]string{
	"stdio":           TransportStdio,
	"http":            TransportHTTP,
	"streamable-http": TransportHTTP,
	"streamableHttp":  TransportHTTP,
	"streamable_http": TransportHTTP,
	"sse":             TransportSSE,
}

// expandAll expands ${VAR} in every string that reaches the server.
func (p *fileParser) expandAll(s *ServerConfig, key string, at map[string]member) error {
	one := func(k string, v *string) error {
		out, err := expand(*v, p.lookup)
		if err != nil {
			return p.errAt(at[strings.SplitN(k, ".", 2)[0]].valOff, joinKey(key, k), "%v", err)
		}
		*v = out
		return nil
	}
	var errs []error
	if s.Transport == TransportStdio {
		errs = append(errs, one("command", &s.Command), one("cwd", &s.Cwd))
		for i := range s.Args {
			errs = append(errs, one(fmt.Sprintf("args.%d", i), &s.Args[i]))
		}
		for k, v := range s.Env {
			errs = append(errs, one("env."+k, &v))
			s.Env[k] = v
		}
	} else {
		errs = append(errs, one("url", &s.URL), one("oauth.clientId", &s.OAuth.ClientID), one("oauth.clientSecret", &s.OAuth.ClientSecret))
		for k, v := range s.Headers {
			errs = append(errs, one("headers."+k, &v))
			s.Headers[k] = v
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if s.Transport != TransportStdio {
		if err := checkServerURL(s.URL); err != nil {
			return p.errAt(at["url"].valOff, joinKey(key, "url"), "%v", err)
		}
	}
	for k := range s.Env {
		if !validVarName(k) {
			return p.errAt(at["env"].valOff, joinKey(key, "env."+k), "not a valid environment variable name")
		}
	}
	return nil
}

func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("want an http:// or https:// URL, found %q", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("no host in %q", raw)
	}
	return nil
}

// maxServerNameLen keeps mcp_<server>_<tool> within reach of the
// providers' 64-character limit on tool names.
const maxServerNameLen = 48

// checkServerName: a server's name becomes part of tool names, which the
// providers restrict to [A-Za-z0-9_-].
func checkServerName(name string) error {
	if name == "" {
		return errors.New("empty server name")
	}
	if len(name) > maxServerNameLen {
		return fmt.Errorf("server name longer than %d characters", maxServerNameLen)
	}
	for _, c := range name {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("server name %q may hold only letters, digits, '_' and '-' (it becomes part of tool names), not %q", name, c)
		}
	}
	return nil
}

func joinKey(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// position turns a byte offset into a 1-based line and column (in
// characters).
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipSeparators skips white space, commas and colons: what lies between
// the decoder's offset and the next key or value.
func skipSeparators(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\r\n,:", b[i]) >= 0 {
		i++
	}
	return i
}

// valueStartBefore finds where the scalar value that ends at end starts,
// for errors that report the offset after a value.
func valueStartBefore(b []byte, end int) int {
	i := end
	for i > 0 && strings.IndexByte(" \t\r\n,:[{", b[i-1]) < 0 {
		i--
		if b[i] == '"' { // a string: back to its opening quote
			for i > 0 {
				i--
				if b[i] == '"' && (i == 0 || b[i-1] != '\\') {
					break
				}
			}
			return i
		}
	}
	return i
}

func describeJSON(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
