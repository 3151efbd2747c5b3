package shellcmd

import "testing"

// BenchmarkParseClassify measures what every shell_exec call costs the
// policy and the tool: reading a typical line and classing it.
func BenchmarkParseClassify(b *testing.B) {
	const line = `cd sub && git status --short && go test ./... 2>&1 | tail -20; echo "done at $(date +%s)" > /dev/null`
	exists := func(string) bool { return false }
	l, err := Parse(line)
	if err != nil || l.Class(exists) != Write {
		b.Fatalf("Parse: %v, class %v", err, l.Class(exists))
	}
	b.ReportAllocs()
	for b.Loop() {
		l, _ := Parse(line)
		l.Class(exists)
	}
}
