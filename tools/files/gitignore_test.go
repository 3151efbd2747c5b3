package files

import "testing"

func TestGitignoreRules(t *testing.T) {
	root := parseIgnore("", []byte(`# comment
*.log
!important.log
/anchored.txt
build/
docs/**/*.tmp
**/cache
trailing   
escaped\ 
\#hash
\!bang
{brace}
a[0-9].txt
`))
	sub := parseIgnore("sub", []byte("local.txt\n!*.log\n"))
	st := ignoreStack{root, sub}
	cases := []struct {
		path  string
		dir   bool
		want  bool
		about string
	}{
		{"x.log", false, true, "name pattern"},
		{"deep/down/x.log", false, true, "name pattern at any depth"},
		{"important.log", false, false, "negation"},
		{"anchored.txt", false, true, "leading slash anchors"},
		{"deep/anchored.txt", false, false, "anchored not below"},
		{"build", true, true, "dir-only on a directory"},
		{"build", false, false, "dir-only not on a file"},
		{"src/build", true, true, "dir-only at depth"},
		{"docs/a/b/c.tmp", false, true, "** in the middle"},
		{"docs/c.tmp", false, true, "** matches zero directories"},
		{"other/c.tmp", false, false, "middle slash anchors"},
		{"cache", true, true, "leading **/"},
		{"x/y/cache", true, true, "leading **/ at depth"},
		{"trailing", false, true, "trailing spaces trimmed"},
		{"escaped ", false, true, "escaped trailing space kept"},
		{"#hash", false, true, "escaped #"},
		{"!bang", false, true, "escaped !"},
		{"{brace}", false, true, "braces are literal"},
		{"brace", false, false, "no alternation"},
		{"a5.txt", false, true, "character class"},
		{"ab.txt", false, false, "character class miss"},
		{"sub/local.txt", false, true, "nested file"},
		{"local.txt", false, false, "nested rule does not apply above"},
		{"sub/x.log", false, false, "deeper file overrides"},
		{"comment", false, false, "comment"},
	}
	for _, c := range cases {
		if got := st.ignored(c.path, c.dir); got != c.want {
			t.Errorf("%s: ignored(%q, dir=%v) = %v, want %v", c.about, c.path, c.dir, got, c.want)
		}
	}
}
