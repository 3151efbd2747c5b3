package shell_test

import (
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"os"
	"path/filepath"
	"testing"

	"github.com/moteur/moteur/tools/shell"
)

func TestRiskOf(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxNone)
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	probe, write, destructive := effect.RiskProbe, effect.RiskWrite, effect.RiskDestructive
	for _, c := range []struct {
		command string
		want    effect.Risk
	}{
		// Read-only programs, alone and combined.
		{"ls", probe},
		{"ls -la src", probe},
		{"git status", probe},
		{"git log --oneline -5", probe},
		{"git --no-pager diff HEAD~1 -- a.go", probe},
		{"git -C sub show HEAD:go.mod", probe},
		{"git branch", probe},
		{"git branch -a -v", probe},
		{"git branch --list 'feat*'", probe},
		{"git rev-parse HEAD && git ls-files | wc -l", probe},
		{"git blame -L 1,5 main.go", probe},
		{"cat go.mod | head -5; tail -n 3 README.md", probe},
		{"grep -rn TODO . || echo none", probe},
		{"rg -n 'func main' --type go", probe},
		{"find . -name '*.go' -type f", probe},
		{"stat a; file b; which go; env; date -u; uname -a", probe},
		{"tree -L 2 && du -sh . && df -h", probe},
		{"pwd\necho \"$HOME\"", probe},
		{"cd sub && git status", probe},
		{"ls 2>/dev/null", probe},
		{"ls >/dev/null 2>&1", probe},
		{"ls &>/dev/null", probe},
		{"grep x < input.txt", probe},
		{"cat <<< 'some text'", probe},
		{"cat <<'EOF'\nrm -rf x; it's text\nEOF", probe}, // a here-document is data
		{"LANG=C ls", probe},                             // a safe variable
		{"true && test -f x && [ -d y ]", probe},
		{"ls # ; rm -rf /", probe},
		{"echo 'a;b|c&&d>e' \"$(x)\"", write}, // $( inside double quotes
		{"echo 'a;b|c&&d>e'", probe},
		{"ls \\\n  -la", probe},
		{"ls |& grep x", probe},

		// Programs that write or are unknown.
		{"rm -rf build", destructive},
		{"ls && rm x", destructive},
		{"ls; touch x", write},
		{"ls | xargs rm", destructive},
		{"make", write},
		{"go test ./...", write},
		{"sudo ls", write},
		{"FOO=1 ls", write},
		{"$CMD", write},
		{"l?", write},
		{"'rm' x", destructive},
		{"", write},
		{";", write},

		// Redirections.
		{"echo x > out.txt", write},
		{"echo x >> out.txt", write},
		{"ls 2> err.txt", write},
		{"ls &> all.txt", write},
		{"ls >& all.txt", write},
		{"ls >| out.txt", write},
		{"cat <> f", write},
		{"ls > /dev/null.bak", write},
		{"ls > $OUT", destructive}, // may truncate any file

		// Hidden code and constructs the split cannot follow.
		{"echo $(rm -rf x)", destructive},
		{"echo `rm -rf x`", destructive},
		{"cat <(rm x)", destructive},
		{"ls >(rm x)", destructive},
		{"(rm x)", destructive},
		{"ls &", probe}, // a background job is no longer a construct the reading gives up on
		{"sleep 1 & ls", write},
		{"echo ${x@P}", write},
		{"echo ${a[_]}", write},
		{"echo $[1+1]", probe}, // arithmetic on constants
		{"echo $'\\''; rm -rf x; echo '", write},
		{"cat <<EOF\necho '\nEOF\nrm -rf x\necho '", write}, // does not parse
		{"ls # '\nrm -rf x\n# '", destructive},
		{"ls 'unterminated", write},
		{"ls \"unterminated", write},
		{"ls \\", write}, // refused: bash reads a final backslash in two ways
		{"if ls; then rm x; fi", destructive},
		{"{ rm x; }", destructive},
		{"f() { rm x; }; f", destructive},

		// Read-only programs used to write.
		{"find . -delete", destructive},
		{"find . -name x -exec rm {} ;", destructive},
		{"find . -execdir rm {} +", destructive},
		{"find . -fprint out", write},
		{"find * -name x", write}, // a file named -delete
		{"find . $X", write},
		{"git branch new-feature", write},
		{"git branch -D main", destructive},
		{"git branch -m a b", write},
		{"git diff --output=patch.txt", write},
		{"git log --out=x", write},
		{"git -c core.pager=evil log", write},
		{"git commit -m x", write},
		{"git push", write},
		{"git checkout .", destructive},
		{"git", write},
		{"git diff *", write},
		{"rg --pre ./evil x", write},
		{"rg --pre=./evil x", write},
		{"rg --hostname-bin=./evil x", write},
		{"date -s 2020-01-01", write},
		{"date -us now", write},
		{"date --set=now", write},
		{"date --se now", write},
		{"tree -o out.txt", write},
		{"tree -R", write},
		{"file -C -m magic", write},
		{"file --compile", write},
		{"env rm -rf x", destructive},
		{"env FOO=1 ls", write},
	} {
		args, _ := json.Marshal(map[string]string{"command": c.command})
		if got := e.RiskOf(args); got != c.want {
			t.Errorf("RiskOf(%q) = %s, want %s", c.command, got, c.want)
		}
	}

	// Arguments beyond the command.
	for raw, want := range map[string]effect.Risk{
		`{"command":"ls","env":{"PATH":"."}}`:     write, // ./ls
		`{"command":"ls","env":{"FOO":"1"}}`:      write, // not on the safe list
		`{"command":"ls","env":{"NO_COLOR":"1"}}`: probe,
		`{"command":"ls","env":{}}`:               probe,
		`{"command":"bash","stdin":"rm -rf x"}`:   destructive, // the script bash reads
		`{"command":"bash","stdin":"ls"}`:         write,
		`{"command":"ls","work_dir":"../x"}`:      write, // refused by Execute
		`{"command":"ls","work_dir":"sub"}`:       probe,
		`{"command":"cat","stdin":"x"}`:           probe,
		`not json`:                                write,
		`{"command":42}`:                          write,
	} {
		if got := e.RiskOf(json.RawMessage(raw)); got != want {
			t.Errorf("RiskOf(%s) = %s, want %s", raw, got, want)
		}
	}
}
