package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxDiffFile bounds the file read to show a diff, and maxDiffLines the
// lines compared: beyond, the dialog says the change is too large to show.
const (
	maxDiffFile  = 1 << 20
	maxDiffLines = 1000
	diffContext  = 3
)

// changeDiff is the unified diff that call (tool, JSON arguments) would make
// to the file it names under root: write_file's new content, or edit_file's
// replacements applied to the file on disk. ok is false for other tools and
// for arguments that do not read.
func changeDiff(root, tool, args string) (diff string, ok bool) {
	switch tool {
	case "write_file":
		var a struct {
			Path    string  `json:"path"`
			Content *string `json:"content"`
			Mode    string  `json:"mode"`
		}
		if json.Unmarshal([]byte(args), &a) != nil || a.Path == "" || a.Content == nil {
			return "", false
		}
		old, _ := readForDiff(root, a.Path)
		updated := *a.Content
		if a.Mode == "append" {
			updated = old + updated
		}
		return unifiedDiff(a.Path, old, updated), true
	case "edit_file":
		var a struct {
			Path  string `json:"path"`
			Edits []struct {
				Old        string `json:"old_string"`
				New        string `json:"new_string"`
				ReplaceAll bool   `json:"replace_all"`
			} `json:"edits"`
		}
		if json.Unmarshal([]byte(args), &a) != nil || a.Path == "" {
			return "", false
		}
		old, err := readForDiff(root, a.Path)
		if err != nil {
			return "", false
		}
		updated := old
		for _, e := range a.Edits {
			if e.ReplaceAll {
				updated = strings.ReplaceAll(updated, e.Old, e.New)
			} else {
				updated = strings.Replace(updated, e.Old, e.New, 1)
			}
		}
		return unifiedDiff(a.Path, old, updated), true
	}
	return "", false
}

// readForDiff reads path (relative to root unless absolute), up to
// maxDiffFile bytes; a missing file reads as empty.
func readForDiff(root, path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b := make([]byte, maxDiffFile)
	n, _ := f.Read(b)
	return string(b[:n]), nil
}

// unifiedDiff is the unified diff from old to updated, with diffContext
// lines of context around each hunk.
func unifiedDiff(name, old, updated string) string {
	a, b := splitLines(old), splitLines(updated)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	if old == updated {
		sb.WriteString("(no change)\n")
		return sb.String()
	}
	ops := diffLines(a, b)
	// Hunks: runs of changes with their context, merged when close.
	type span struct{ lo, hi int }
	var spans []span
	for i, op := range ops {
		if op.kind == ' ' {
			continue
		}
		lo, hi := max(0, i-diffContext), min(len(ops), i+diffContext+1)
		if n := len(spans); n > 0 && lo <= spans[n-1].hi {
			spans[n-1].hi = hi
		} else {
			spans = append(spans, span{lo, hi})
		}
	}
	for _, s := range spans {
		ai, bi, an, bn := 0, 0, 0, 0
		for _, op := range ops[:s.lo] {
			if op.kind != '+' {
				ai++
			}
			if op.kind != '-' {
				bi++
			}
		}
		for _, op := range ops[s.lo:s.hi] {
			if op.kind != '+' {
				an++
			}
			if op.kind != '-' {
				bn++
			}
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", ai+1, an, bi+1, bn)
		for _, op := range ops[s.lo:s.hi] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.line)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// diffLines is an edit script from a to b: the common prefix and suffix
// kept, the middle by longest common subsequence when small enough, else
// replaced whole.
func diffLines(a, b []string) []diffOp {
	var head, tail []diffOp
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		head = append(head, diffOp{' ', a[0]})
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		tail = append([]diffOp{{' ', a[len(a)-1]}}, tail...)
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	var mid []diffOp
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		for _, l := range a {
			mid = append(mid, diffOp{'-', l})
		}
		for _, l := range b {
			mid = append(mid, diffOp{'+', l})
		}
	} else {
		mid = lcsDiff(a, b)
	}
	return append(append(head, mid...), tail...)
}

func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	// l[i][j]: length of the LCS of a[i:] and b[j:].
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
