package shell

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/moteur/moteur/shellcmd"
)

// fallbackPath is PATH when Moteur's own environment has none.
const fallbackPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// baseEnv returns the environment every command starts from: cfg when
// given (checked, copied), else a minimal one. Moteur's environment holds
// provider API keys and tokens; handing it whole to commands the model
// writes would let one `env` print them into the conversation, so only what
// programs need to behave is copied.
func baseEnv(cfg []string) ([]string, error) {
	if len(cfg) > 0 {
		for _, kv := range cfg {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("shell: environment entry %q is not KEY=value", kv)
			}
			if err := checkVar(k, v); err != nil {
				return nil, fmt.Errorf("shell: environment: %w", err)
			}
		}
		return slices.Clone(cfg), nil
	}
	home := os.Getenv("HOME")
	if home == "" {
		home = "/"
	}
	return []string{
		"PATH=" + getenv("PATH", fallbackPath),
		"HOME=" + home,
		"LANG=" + getenv("LANG", "C.UTF-8"),
		// No terminal to drive: programs that check TERM drop colours and
		// cursor tricks that would only clutter the output.
		"TERM=dumb",
	}, nil
}

func getenv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// checkEnv checks the call's env argument. A variable that can make the
// command run other code (BASH_ENV, PATH, LD_PRELOAD, GIT_CONFIG_*, …:
// shellcmd.EnvRefused) is refused here as the policy refuses it, so that
// a caller without a policy does not run it either.
func checkEnv(env map[string]string) error {
	for k, v := range env {
		if err := checkVar(k, v); err != nil {
			return fmt.Errorf("env: %w", err)
		}
		if shellcmd.EnvOf(k, v) == shellcmd.EnvRefused {
			return fmt.Errorf("env: %s is refused: it can make the command run other code or read another configuration; set it in the command itself, where the user sees it", k)
		}
	}
	return nil
}

// checkVar accepts the names a shell can export: a name with "=" or a NUL
// would be cut or rejected by execve anyway, and silently so.
func checkVar(k, v string) error {
	if k == "" {
		return fmt.Errorf("empty variable name")
	}
	for i, c := range k {
		letter := c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return fmt.Errorf("invalid variable name %q: use letters, digits and _, not starting with a digit", k)
		}
	}
	if strings.IndexByte(v, 0) >= 0 {
		return fmt.Errorf("variable %s contains a NUL byte", k)
	}
	return nil
}

// mergeEnv returns base with the call's variables appended in name order
// (a stable order: the same call gives the same environment). os/exec keeps
// the last of duplicate keys, so the call's value wins.
func mergeEnv(base []string, add map[string]string) []string {
	env := slices.Clone(base)
	keys := make([]string, 0, len(add))
	for k := range add {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+add[k])
	}
	return env
}

// hasVar reports whether env sets key.
func hasVar(env []string, key string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == key {
			return true
		}
	}
	return false
}
