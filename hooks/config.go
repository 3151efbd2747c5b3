package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// DefaultTimeout is a hook's time when its configuration gives none, as
// in Claude Code.
const DefaultTimeout = 60 * time.Second

// SessionEndTimeout caps every SessionEnd hook: the session is closing and
// the user waits (seed 003, EndSession).
const SessionEndTimeout = 5 * time.Second

// Group is one entry of an event's list in Claude Code's settings shape:
// {matcher: REGEX, hooks: [{type: command, command: …, timeout: S}]}.
type Group struct {
	Matcher string    `yaml:"matcher" json:"matcher,omitempty"`
	Hooks   []Command `yaml:"hooks" json:"hooks"`
}

// Command is one hook of a Group. Type must be "command".
type Command struct {
	Type    string `yaml:"type" json:"type"`
	Command string `yaml:"command" json:"command"`
	// Timeout in seconds; 0: DefaultTimeout.
	Timeout float64 `yaml:"timeout" json:"timeout,omitempty"`
}

// Source is the hooks: section of one configuration file, keyed by event
// name as written.
type Source struct {
	// File is the configuration file, for messages.
	File string
	// Project: the file came with the code (<root>/.moteur/config.yaml);
	// its hooks run only once the user has trusted them (see
	// Set.ProjectSHA256 and Set.TrustedBy).
	Project bool
	Events  map[string][]Group
	// LineOf returns the line of a key path such as
	// "$.hooks.PreToolUse[0].matcher" in File (0: unknown); nil: no lines.
	LineOf func(path string) int
}

// Config configures New. Its zero value is a Set without hooks.
type Config struct {
	// Sources in the order they apply (user's file, then project's); hooks
	// run and their outputs are joined in this order.
	Sources []Source
	// ProjectDir is the project root: $CLAUDE_PROJECT_DIR and
	// $MOTEUR_PROJECT_DIR, the hooks' working directory when Input.CWD is
	// empty, and the base of Claude Code's absolute file_path.
	ProjectDir string
	// DefaultTimeout replaces DefaultTimeout when not zero.
	DefaultTimeout time.Duration
	// Environ is the environment hooks inherit; nil: os.Environ.
	Environ func() []string
	// Shell runs each command as Shell -c COMMAND; "": /bin/sh.
	Shell string
}

// ConfigError is a hook New skipped (or, for a missing program, kept but
// warned of): where it is and why.
type ConfigError struct {
	File string
	Line int    // 0: unknown
	Key  string // e.g. hooks.PreToolUse[0].matcher
	Err  error
}

func (e *ConfigError) Error() string {
	at := e.File
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", at, e.Line)
	}
	return fmt.Sprintf("hooks %s: %s: %v", at, e.Key, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// ErrMissingProgram is wrapped by the ConfigError of a hook whose program
// cannot be found: the hook is kept (it may appear later) but will fail.
var ErrMissingProgram = errors.New("program not found")

// events is every Event, for checking names.
var events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStop, PreCompact, Notification, SessionEnd}

// New builds the Set of cfg. A hook that cannot work — unknown event, type
// other than command, empty command, bad matcher, negative timeout — is
// skipped and reported; a program that cannot be found is reported and
// kept. New never fails as a whole: the session goes on without the bad
// hooks.
func New(cfg Config) (*Set, []error) {
	s := &Set{cfg: cfg, byEvent: map[Event][]*entry{}}
	if s.cfg.Shell == "" {
		s.cfg.Shell = "/bin/sh"
	}
	if s.cfg.Environ == nil {
		s.cfg.Environ = os.Environ
	}
	if s.cfg.DefaultTimeout <= 0 {
		s.cfg.DefaultTimeout = DefaultTimeout
	}
	var errs []error
	var project []Source
	for _, src := range cfg.Sources {
		if src.Project && len(src.Events) > 0 {
			project = append(project, src)
			s.projectFiles = append(s.projectFiles, src.File)
		}
		errs = append(errs, s.add(src)...)
	}
	s.projectSum = projectSum(project)
	return s, errs
}

// add compiles one file's hooks, events in a fixed order so that reports
// and the order of outputs do not depend on map iteration.
func (s *Set) add(src Source) []error {
	var errs []error
	report := func(key string, err error) {
		e := &ConfigError{File: src.File, Key: key, Err: err}
		if src.LineOf != nil {
			e.Line = src.LineOf("$." + key)
		}
		errs = append(errs, e)
	}
	names := make([]string, 0, len(src.Events))
	for name := range src.Events {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ev := Event(name)
		if !slices.Contains(events, ev) {
			report("hooks."+name, fmt.Errorf("unknown event %q: want one of %s", name, eventList()))
			continue
		}
		for gi, g := range src.Events[name] {
			gkey := fmt.Sprintf("hooks.%s[%d]", name, gi)
			m, err := compileMatcher(g.Matcher)
			if err != nil {
				report(gkey+".matcher", err)
				continue
			}
			for hi, c := range g.Hooks {
				key := fmt.Sprintf("%s.hooks[%d]", gkey, hi)
				e, err := s.entry(ev, m, c, src, key)
				if err != nil {
					report(key, err)
					continue
				}
				if err := checkProgram(c.Command, s.cfg.ProjectDir, s.cfg.Environ); err != nil {
					report(key+".command", err)
				}
				s.byEvent[ev] = append(s.byEvent[ev], e)
			}
		}
	}
	return errs
}

func (s *Set) entry(ev Event, m *matcher, c Command, src Source, key string) (*entry, error) {
	switch {
	case c.Type != "command":
		return nil, fmt.Errorf("type %q is not supported: want command", c.Type)
	case strings.TrimSpace(c.Command) == "":
		return nil, errors.New("command is empty")
	case strings.IndexByte(c.Command, 0) >= 0:
		return nil, errors.New("command contains a NUL byte")
	case c.Timeout < 0 || c.Timeout > 24*3600:
		return nil, fmt.Errorf("timeout %v: want seconds, more than 0 and at most a day (0 or absent: %v)", c.Timeout, s.cfg.DefaultTimeout)
	}
	timeout := s.cfg.DefaultTimeout
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout * float64(time.Second))
	}
	if ev == SessionEnd {
		timeout = min(timeout, SessionEndTimeout)
	}
	return &entry{
		hook:    Hook{Name: shortName(c.Command), Command: c.Command, Source: src.File + ": " + key},
		match:   m,
		timeout: timeout,
		project: src.Project,
	}, nil
}

// shortName is a command cut for display in events.
func shortName(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if r := []rune(cmd); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return cmd
}

func eventList() string {
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// projectSum is the SHA-256 (hex) of the project files' hooks sections:
// what the user trusts. Only the hooks count, so that editing another key
// of the file does not ask again, and the text hashed starts with a label
// so that it can never equal the hash of a trusted .mcp.json kept in the
// same store. encoding/json sorts map keys, which makes it canonical.
func projectSum(srcs []Source) string {
	if len(srcs) == 0 {
		return ""
	}
	h := sha256.New()
	h.Write([]byte("moteur project hooks v1\n"))
	for _, src := range srcs {
		data, _ := json.Marshal(src.Events) // plain strings and numbers: cannot fail
		h.Write(data)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
