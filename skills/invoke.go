package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/moteur/moteur/frontmatter"
)

// Invoke returns the text of the user message for "/NAME args" (chat) or
// "--skill NAME" (run), and the hex SHA-256 of the SKILL.md it read, for
// Input.Skill and Input.SkillSHA256. SKILL.md is read anew, so the hash is
// that of the text the model gets.
//
// The text is, as Claude Code builds it, the body of SKILL.md (front matter
// left out) with its placeholders replaced: $ARGUMENTS by args whole,
// $ARGUMENTS[N] and $N (N from 0) by the N-th argument (split as a shell
// splits words, with '…' and "…" quoting; "" past the last),
// ${CLAUDE_SKILL_DIR} and ${MOTEUR_SKILL_DIR} by the skill's directory. A
// body that uses none of the argument placeholders gets "ARGUMENTS: args"
// appended when args is not empty, so the arguments are never lost. A short
// first line names the skill, its address and how to run its scripts.
//
// ErrUnknown for a skill not offered, ErrNotUserInvocable for one whose
// front matter sets user-invocable: false.
func (s *Set) Invoke(name, args string) (text string, sum string, err error) {
	k, err := s.lookup(name)
	if err != nil {
		return "", "", err
	}
	if !k.UserInvocable {
		return "", "", fmt.Errorf("%w: %s sets user-invocable: false", ErrNotUserInvocable, name)
	}
	root, err := os.OpenRoot(k.Dir)
	if err != nil {
		return "", "", fmt.Errorf("skill %s: cannot open its directory: %v", name, stripPath(err))
	}
	defer root.Close()
	data, err := readIn(root, FileName, MaxSkillFileBytes)
	if err != nil {
		return "", "", fmt.Errorf("skill %s: %w", name, err)
	}
	doc, err := frontmatter.Parse(data)
	if err != nil {
		return "", "", fmt.Errorf("skill %s: %s no longer reads: %w", name, FileName, err)
	}
	h := sha256.Sum256(data)
	args = strings.TrimSpace(args)
	body, used := substitute(expand(doc.Body, k.Dir), args)
	body = strings.TrimSpace(body)
	if !used && args != "" {
		body += "\n\nARGUMENTS: " + args
	}
	head := fmt.Sprintf("[Skill %s (%s), directory %s; run its scripts with shell_exec(skill_name=%q, …)]\n\n", k.Name, k.URI(), k.Dir, k.Name)
	return head + body, hex.EncodeToString(h[:]), nil
}

// substitute replaces the argument placeholders of body; used reports
// whether there was one.
func substitute(body, args string) (string, bool) {
	words := splitWords(args)
	var b strings.Builder
	used := false
	for i := 0; i < len(body); {
		if body[i] != '$' {
			j := strings.IndexByte(body[i:], '$')
			if j < 0 {
				b.WriteString(body[i:])
				break
			}
			b.WriteString(body[i : i+j])
			i += j
			continue
		}
		rest := body[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS["):
			inner := rest[len("ARGUMENTS["):]
			end := strings.IndexByte(inner, ']')
			if n, err := strconv.Atoi(inner[:max(end, 0)]); end > 0 && err == nil && n >= 0 {
				b.WriteString(word(words, n))
				i += 1 + len("ARGUMENTS[") + end + 1
				used = true
				continue
			}
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += 1 + len("ARGUMENTS")
			used = true
			continue
		case len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9':
			j := 0
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(rest[:j])
			b.WriteString(word(words, n))
			i += 1 + j
			used = true
			continue
		}
		b.WriteByte('$')
		i++
	}
	return b.String(), used
}

func word(words []string, n int) string {
	if n < len(words) {
		return words[n]
	}
	return ""
}

// splitWords splits args at blanks, with '…' and "…" grouping.
func splitWords(args string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
