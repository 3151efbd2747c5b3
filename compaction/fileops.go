package compaction

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/moteur/moteur/llm"
)

// Names of the file tools whose paths the summary keeps. They are repeated
// here rather than imported from tools/files so that compaction stays a leaf
// package; the names are part of the tools' public contract.
const (
	toolReadFile  = "read_file"
	toolWriteFile = "write_file"
	toolEditFile  = "edit_file"
)

// Markers of the files section the Compactor appends to every summary. The
// section is written by code, not by the model, so that the next compaction
// can parse it back and merge the lists exactly.
const (
	readOpen      = "<read-files>"
	readClose     = "</read-files>"
	modifiedOpen  = "<modified-files>"
	modifiedClose = "</modified-files>"
)

// fileOps are the paths a part of the history read and modified.
type fileOps struct {
	read, modified map[string]bool
}

func newFileOps() fileOps {
	return fileOps{read: map[string]bool{}, modified: map[string]bool{}}
}

// collect adds the paths of the file tool calls of msgs. Arguments may be
// invalid JSON (the model produced them); such a call is skipped.
func (f fileOps) collect(msgs []llm.Message) {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			var set map[string]bool
			switch c.Name {
			case toolReadFile:
				set = f.read
			case toolWriteFile, toolEditFile:
				set = f.modified
			default:
				continue
			}
			var args struct {
				Path     string `json:"path"`
				FilePath string `json:"file_path"`
			}
			if json.Unmarshal([]byte(c.Arguments), &args) != nil {
				continue
			}
			for _, p := range []string{args.Path, args.FilePath} {
				if p = strings.TrimSpace(p); p != "" {
					set[p] = true
				}
			}
		}
	}
}

// parse adds the lists of a files section written by section.
func (f fileOps) parse(summary string) {
	addLines(f.read, between(summary, readOpen, readClose))
	addLines(f.modified, between(summary, modifiedOpen, modifiedClose))
}

func addLines(set map[string]bool, block string) {
	for line := range strings.SplitSeq(block, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			set[line] = true
		}
	}
}

// between returns the text between the last open marker and the close marker
// after it, or "".
func between(s, open, close string) string {
	i := strings.LastIndex(s, open)
	if i < 0 {
		return ""
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// section renders the files section. A file both read and modified is listed
// as modified only: that is what the model needs to know about it.
func (f fileOps) section() string {
	read := sortedKeys(f.read, f.modified)
	mod := sortedKeys(f.modified, nil)
	if len(read) == 0 && len(mod) == 0 {
		return ""
	}
	var b strings.Builder
	if len(read) > 0 {
		b.WriteString(readOpen + "\n" + strings.Join(read, "\n") + "\n" + readClose)
	}
	if len(mod) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(modifiedOpen + "\n" + strings.Join(mod, "\n") + "\n" + modifiedClose)
	}
	return b.String()
}

func sortedKeys(set, except map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		if !except[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// stripFiles removes the files sections from a summary, leaving the prose the
// model wrote.
func stripFiles(s string) string {
	for _, m := range [][2]string{{readOpen, readClose}, {modifiedOpen, modifiedClose}} {
		for {
			i := strings.Index(s, m[0])
			if i < 0 {
				break
			}
			j := strings.Index(s[i:], m[1])
			if j < 0 {
				break
			}
			s = s[:i] + s[i+j+len(m[1]):]
		}
	}
	return strings.TrimSpace(s)
}
