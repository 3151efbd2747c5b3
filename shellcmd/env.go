package shellcmd

import "strings"

// EnvClass is what an environment variable can do to the programs that
// inherit it.
type EnvClass int

// Environment classes, from harmless to refused.
const (
	// EnvOther is a name Moteur knows nothing about: most likely harmless
	// (FOO=1), but not vouched for.
	EnvOther EnvClass = iota
	// EnvSafe changes how programs format their output or which ordinary
	// build or test options they use, never which program or code runs
	// or which configuration is read (see SafeEnv).
	EnvSafe
	// EnvRisky is a name that commonly changes where programs read their
	// configuration or send their data (HOME, TMPDIR, *_PROXY, XDG_*,
	// *FLAGS, …) without being a known way to run code.
	EnvRisky
	// EnvRefused makes programs run other code or load another
	// configuration: BASH_ENV, ENV, PATH, LD_*, GIT_* (but the few in
	// SafeEnv), PAGER, EDITOR, NODE_OPTIONS, PYTHONPATH, … (see refused).
	EnvRefused
)

func (c EnvClass) String() string {
	switch c {
	case EnvSafe:
		return "safe"
	case EnvRisky:
		return "risky"
	case EnvRefused:
		return "refused"
	}
	return "other"
}

// SafeEnv is the documented list of variables a call's env may set and
// still be covered by an allow rule. A trailing * stands for any suffix.
// GOFLAGS is safe only with the flags listed in safeGoflags, CGO_ENABLED
// only as 0 or 1, GOWORK only as off, GOTOOLCHAIN only as local.
var SafeEnv = []string{
	"CI", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS", "LINES",
	"TZ", "LANG", "LANGUAGE", "LC_*",
	"GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOAMD64", "GOARM", "GOARM64", "GOMAXPROCS",
	"GOGC", "GOMEMLIMIT", "GOTRACEBACK", "GOWORK", "GOTOOLCHAIN",
	"NODE_ENV", "RUST_BACKTRACE", "RUST_LOG", "RUST_TEST_THREADS", "CARGO_TERM_COLOR",
	"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONHASHSEED", "PYTHONUTF8",
	"GIT_TERMINAL_PROMPT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
}

// refused are the names a call's env may never set (the call is denied)
// and that make a command computed when the line assigns them. Prefixes
// end with '_'.
var refused = map[string]bool{
	"BASH_ENV": true, "ENV": true, "PATH": true, "IFS": true, "SHELLOPTS": true, "BASHOPTS": true,
	"PS4": true, "PS1": true, "PROMPT_COMMAND": true, "SHELL": true,
	"PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "PYTHONINSPECT": true, "PYTHONUSERBASE": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "PERL5DB": true,
	"RUBYOPT": true, "RUBYLIB": true, "EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true,
	"LESSOPEN": true, "LESSCLOSE": true, "BROWSER": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"GCONV_PATH": true, "LOCPATH": true, "HOSTALIASES": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
	"JDK_JAVA_OPTIONS": true, "DOTNET_STARTUP_HOOKS": true, "GOENV": true, "GOTOOLDIR": true,
}

// refusedPrefixes: the dynamic loader's, exported bash functions, and git's
// (GIT_CONFIG_*, GIT_SSH*, GIT_EXEC_PATH, GIT_DIR, GIT_PAGER… nearly every
// one can point git at other code or another repository's hooks).
var refusedPrefixes = []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_"}

// risky prefixes and suffixes, from the usual ways a variable redirects a
// program's configuration, caches or traffic.
var (
	riskyNames    = []string{"HOME", "TMPDIR", "CDPATH", "CC", "CXX", "MAKEFLAGS", "TERMINFO", "TERMINFO_DIRS", "CLASSPATH", "HISTFILE"}
	riskyPrefixes = []string{"XDG_", "PYTHON", "PERL", "RUBY", "NODE_", "NPM_", "YARN_", "PNPM_", "BASH", "JAVA", "MAVEN_",
		"GRADLE_", "CARGO", "RUST", "GO", "SSL_", "CURL_", "WGET", "BUNDLE_", "PIP_", "UV_", "DOCKER_", "KUBE", "AWS_",
		"GOOGLE_", "AZURE_", "SSH_", "GPG", "GNUPG"}
	riskySuffixes = []string{"PAGER", "PROXY", "_OPTIONS", "_OPTS", "FLAGS", "_PATH", "_HOOK", "_HOOKS", "_COMMAND",
		"_CMD", "_EDITOR", "_CONFIG", "_HOME", "_DIR", "_FILE", "_URL", "_HOST"}
)

// EnvOf classes the variable name set to value. Refusal and risk are
// judged on the upper-case name, so that a lower-case spelling is not a
// way round them; safety needs the exact name.
func EnvOf(name, value string) EnvClass {
	if !validName(name) {
		// BASH_FUNC_f%%, or anything a shell would not export as a plain
		// variable: an exported function, or a trick.
		return EnvRefused
	}
	if listed, ok := safeEnv(name, value); ok {
		return EnvSafe
	} else if listed {
		return EnvRisky // GOFLAGS=-toolexec=…: a safe name with a value that is not
	}
	n := strings.ToUpper(name)
	if refused[n] {
		return EnvRefused
	}
	for _, p := range refusedPrefixes {
		if strings.HasPrefix(n, p) {
			return EnvRefused
		}
	}
	for _, r := range riskyNames {
		if n == r {
			return EnvRisky
		}
	}
	for _, p := range riskyPrefixes {
		if strings.HasPrefix(n, p) {
			return EnvRisky
		}
	}
	for _, s := range riskySuffixes {
		if strings.HasSuffix(n, s) {
			return EnvRisky
		}
	}
	return EnvOther
}

func validName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// safeEnv reports whether name is on SafeEnv, and whether value is one
// the name is safe with.
func safeEnv(name, value string) (listed, ok bool) {
	for _, s := range SafeEnv {
		if p, ok := strings.CutSuffix(s, "*"); ok && strings.HasPrefix(name, p) || s == name {
			listed = true
			break
		}
	}
	if !listed {
		return false, false
	}
	switch name {
	case "GOFLAGS":
		for f := range strings.FieldsSeq(value) {
			if !safeGoflag(f) {
				return true, false
			}
		}
	case "CGO_ENABLED":
		return true, value == "0" || value == "1"
	case "GOWORK":
		return true, value == "off"
	case "GOTOOLCHAIN":
		return true, value == "local"
	}
	return true, true
}

// safeGoflags are the go command flags GOFLAGS may carry and stay safe:
// none names a program to run (-toolexec, -exec), a file to read
// (-modfile, -overlay, -pgo) or a place to write.
var safeGoflags = []string{"-mod=", "-tags=", "-trimpath", "-race", "-count=", "-v", "-short", "-timeout=",
	"-failfast", "-cover", "-buildvcs=", "-p=", "-json", "-vet=", "-shuffle=", "-cpu=", "-parallel="}

func safeGoflag(f string) bool {
	f = strings.Replace(f, "--", "-", 1)
	for _, s := range safeGoflags {
		if strings.HasSuffix(s, "=") && strings.HasPrefix(f, s) || f == s || f == s+"=true" {
			return true
		}
	}
	return false
}
