package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// shellWords are the sh builtins and keywords a command may start with:
// they are not programs to look for.
var shellWords = []string{
	".", ":", "[", "alias", "bg", "break", "case", "cd", "command", "continue", "echo", "eval", "exec",
	"exit", "export", "false", "fg", "for", "getopts", "hash", "if", "jobs", "kill", "printf", "pwd",
	"read", "readonly", "return", "set", "shift", "source", "test", "times", "trap", "true", "type",
	"ulimit", "umask", "unalias", "unset", "until", "wait", "while", "{", "(", "!",
}

// checkProgram looks for the program a command starts with, so that a
// typo is reported when the configuration is read rather than at the first
// tool call. Only a plain first word is checked (after $CLAUDE_PROJECT_DIR,
// $MOTEUR_PROJECT_DIR and ~ are expanded): anything the shell would
// compute is left to the run, which reports its own failure.
func checkProgram(command, projectDir string, environ func() []string) error {
	word, ok := firstWord(command)
	if !ok || word == "" || strings.Contains(word, "=") || slices.Contains(shellWords, word) {
		return nil
	}
	for _, v := range []string{"CLAUDE_PROJECT_DIR", "MOTEUR_PROJECT_DIR"} {
		word = strings.ReplaceAll(word, "${"+v+"}", projectDir)
		word = strings.ReplaceAll(word, "$"+v, projectDir)
	}
	if strings.HasPrefix(word, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		word = filepath.Join(home, word[2:])
	}
	if strings.ContainsAny(word, "$`*?[]{}()<>|&;\\") {
		return nil
	}
	if !strings.Contains(word, "/") {
		if _, err := lookPath(word, environ()); err != nil {
			return fmt.Errorf("%w: %q is not in PATH", ErrMissingProgram, word)
		}
		return nil
	}
	if !filepath.IsAbs(word) {
		if projectDir == "" {
			return nil
		}
		word = filepath.Join(projectDir, word)
	}
	st, err := os.Stat(word)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrMissingProgram, word, err)
	case st.IsDir():
		return fmt.Errorf("%w: %s is a directory", ErrMissingProgram, word)
	case st.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%w: %s is not executable (chmod +x it, or run it with bash %s)", ErrMissingProgram, word, word)
	}
	return nil
}

// lookPath is exec.LookPath with the PATH of the hooks' environment.
func lookPath(name string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// firstWord is the first word of a command line with its quotes removed,
// as the shell would split it (no expansion); false when it holds what
// this small reader does not follow (a backslash, an open quote).
func firstWord(command string) (string, bool) {
	var b strings.Builder
	s := strings.TrimLeft(command, " \t\n")
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			return "", false
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|':
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), quote == 0
}
