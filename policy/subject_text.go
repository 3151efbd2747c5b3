package policy

import (
	"encoding/json"
	"slices"
	"strings"
)

// CallSubject returns the text of what a call is about, read from its
// arguments with the names and the case-insensitive matching the rules use
// (rule_subject.go), so that the line a user approves names what the rules
// judged: the command line (an argv array joined with spaces), then path,
// file_path, paths, url, urls and the items' URLs, in that order, joined
// with ", ". A call holding several ({"path": …, "url": …}) shows them all:
// a rule may have asked because of any of them. {"PATH": "/etc"} is about
// /etc.
//
// ok is false when the arguments name no subject, or only empty ones, and
// when the rules cannot read them with certainty (not a JSON object, a
// subject argument twice in any case or of the wrong type, a command's env
// that is not an object of strings): a summary should then show the
// arguments as they are.
//
// A command's env and stdin, which the rules read with it, are not in the
// text: the shell tool sums them up itself (tools.Summarizer).
func CallSubject(args json.RawMessage) (string, bool) {
	// The rules' own reading says whether the arguments are readable, so
	// that the two cannot part on a doubtful call. The root only places
	// paths, which the text gives as written.
	var rules Permissions
	if read := rules.readSubjects(args); read.unreadable() {
		return "", false
	}
	fields, err := decodeObject(args)
	if err != nil {
		return "", false
	}
	var texts [len(subjectArgs)][]string
	for _, f := range fields {
		name := knownArg(f.key)
		if name == "" {
			continue
		}
		i := slices.Index(subjectArgs[:], name)
		texts[i] = subjectTexts(name, f.raw)
	}
	var out []string
	for _, ts := range texts {
		for _, t := range ts {
			if t != "" {
				out = append(out, t)
			}
		}
	}
	if len(out) == 0 {
		return "", false
	}
	return strings.Join(out, ", "), true
}

// subjectTexts reads the texts of the subject argument name as
// fillSubjects does, once it has found them readable: none for null, and
// none for items that are not {url} objects (an ordinary argument).
func subjectTexts(name string, raw json.RawMessage) []string {
	switch name {
	case "items":
		urls, _, _ := itemURLs(raw)
		return urls
	case "command":
		if isNull(raw) {
			return nil
		}
		cmd, _ := commandString(raw)
		return []string{cmd}
	case "paths", "urls":
		var list []string
		_ = json.Unmarshal(raw, &list)
		return list
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return []string{s}
}
