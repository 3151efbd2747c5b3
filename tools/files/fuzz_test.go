package files

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzEditBatch feeds random files and batches of up to three edits, their
// old_strings mostly cut from the file so that matches happen. edit_file
// must never panic, and either produce exactly what the oracle below
// computes, or fail and leave the file as it was (bytes and mtime).
func FuzzEditBatch(f *testing.F) {
	f.Add("package a\n\nfunc one() {}\nfunc two() {}\n", uint8(1), uint16(11), uint8(3), "uno", false, uint16(25), uint8(3), "dos", false, uint16(0), uint8(0), "", false, "")
	f.Add("aaaa", uint8(0), uint16(0), uint8(2), "b", true, uint16(0), uint8(0), "", false, uint16(0), uint8(0), "", false, "")
	f.Add("aaa", uint8(0), uint16(0), uint8(2), "b", false, uint16(0), uint8(0), "", false, uint16(0), uint8(0), "", false, "")
	f.Add("abcdef", uint8(1), uint16(0), uint8(3), "x", false, uint16(2), uint8(3), "y", false, uint16(0), uint8(0), "", false, "")
	f.Add("x\x00y", uint8(0), uint16(0), uint8(1), "z", false, uint16(0), uint8(0), "", false, uint16(0), uint8(0), "", false, "")
	f.Add("hello world", uint8(2), uint16(0), uint8(5), "bye", false, uint16(6), uint8(5), "earth", false, uint16(0), uint8(0), "!", false, "missing")
	f.Add("a\r\nb\r\n", uint8(0), uint16(1), uint8(2), "\n", true, uint16(0), uint8(0), "", false, uint16(0), uint8(0), "", false, "")

	s, err := New(Config{Root: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	s.noSync = true // thousands of writes; durability is not what is tested
	p := filepath.Join(s.real, "f.txt")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

	f.Fuzz(func(t *testing.T, content string, count uint8,
		o1 uint16, n1 uint8, new1 string, a1 bool,
		o2 uint16, n2 uint8, new2 string, a2 bool,
		o3 uint16, n3 uint8, new3 string, a3 bool, raw string) {
		cut := func(o uint16, n uint8) string {
			start := int(o) % (len(content) + 1)
			return content[start:min(len(content), start+int(n)%16)]
		}
		batch := []edit{
			{Old: cut(o1, n1), New: new1, ReplaceAll: a1},
			{Old: cut(o2, n2), New: new2, ReplaceAll: a2},
			{Old: cut(o3, n3), New: new3, ReplaceAll: a3},
		}[:1+int(count)%3]
		if raw != "" {
			batch[len(batch)-1].Old = raw // often a miss
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}

		want, ok := oracle([]byte(content), batch)
		_, _, err := s.edit(context.Background(), "f.txt", batch)
		got, rerr := os.ReadFile(p)
		if rerr != nil {
			t.Fatal(rerr)
		}
		switch {
		case ok && err != nil:
			t.Fatalf("edit failed, oracle applies it: %v\ncontent %q\nedits %+v", err, content, batch)
		case ok && !bytes.Equal(got, want):
			t.Fatalf("edit result differs\ncontent %q\nedits %+v\ngot  %q\nwant %q", content, batch, got, want)
		case !ok && err == nil:
			t.Fatalf("edit succeeded, oracle refuses it\ncontent %q\nedits %+v\ngot %q", content, batch, got)
		case !ok:
			fi, serr := os.Stat(p)
			if serr != nil || string(got) != content || !fi.ModTime().Equal(old) {
				t.Fatalf("refused edit changed the file: %q (mtime %v)", got, fi.ModTime())
			}
		}
	})
}

// oracle applies a batch the slow, obvious way: every occurrence found by
// trying each position; one required unless replace_all, which takes them
// left to right without overlap; no two replaced ranges may share a byte;
// a no-op or a binary file is refused.
func oracle(content []byte, batch []edit) ([]byte, bool) {
	if bytes.IndexByte(content, 0) >= 0 {
		return nil, false
	}
	type rep struct {
		start, end int
		new        string
	}
	var reps []rep
	for _, e := range batch {
		if e.Old == "" {
			return nil, false
		}
		var at []int
		for i := 0; i+len(e.Old) <= len(content); i++ {
			if string(content[i:i+len(e.Old)]) == e.Old {
				at = append(at, i)
			}
		}
		switch {
		case len(at) == 0:
			return nil, false
		case !e.ReplaceAll && len(at) > 1:
			return nil, false
		case !e.ReplaceAll:
			reps = append(reps, rep{at[0], at[0] + len(e.Old), e.New})
		default:
			end := 0
			for _, i := range at {
				if i >= end {
					reps = append(reps, rep{i, i + len(e.Old), e.New})
					end = i + len(e.Old)
				}
			}
		}
	}
	for i := range reps {
		for j := range reps {
			if i != j && reps[i].start < reps[j].end && reps[j].start < reps[i].end {
				return nil, false
			}
		}
	}
	var out []byte
	for i := 0; i < len(content); {
		placed := false
		for _, r := range reps {
			if r.start == i {
				out = append(out, r.new...)
				i = r.end
				placed = true
				break
			}
		}
		if !placed {
			out = append(out, content[i])
			i++
		}
	}
	if bytes.Equal(out, content) {
		return nil, false
	}
	return out, true
}
