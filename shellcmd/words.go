package shellcmd

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// wordState follows brace expansion across the parts of one word: bash
// expands {a,b} and {1..3} over the whole word, quoted parts included.
type wordState struct {
	out       Word
	b         strings.Builder
	braceOpen int  // unquoted '{' seen and not closed
	braceSep  bool // unquoted ',' or '..' inside it
}

// word converts one word, walking the substitutions in it: their commands
// are added to the line before the command that holds the word, and what
// makes code run from a value (see param, arith) is recorded on owner.
func (w *walker) word(x *syntax.Word, owner *Command, depth int) Word {
	if x == nil {
		return Word{Literal: true}
	}
	var st wordState
	for i, p := range x.Parts {
		w.part(p, &st, false, i == 0, owner, depth)
	}
	st.out.Text = st.b.String()
	st.out.Literal = !st.out.Expands && !st.out.Glob
	return st.out
}

func (w *walker) part(p syntax.WordPart, st *wordState, quoted, first bool, owner *Command, depth int) {
	switch p := p.(type) {
	case *syntax.Lit:
		if quoted {
			st.b.WriteString(unescape(p.Value, doubleEscapes))
		} else {
			st.unquoted(p.Value)
		}
	case *syntax.SglQuoted:
		if p.Dollar {
			st.b.WriteString(ansiC(p.Value))
		} else {
			st.b.WriteString(p.Value)
		}
	case *syntax.DblQuoted:
		if p.Dollar {
			// $"…" is translated through the message catalogue: what
			// it becomes depends on the locale's files, not the text.
			st.out.Expands = true
		}
		for _, q := range p.Parts {
			w.part(q, st, true, false, owner, depth)
		}
	case *syntax.ParamExp:
		st.out.Expands = true
		st.b.WriteString(w.text(p))
		w.param(p, owner, depth)
	case *syntax.CmdSubst:
		st.out.Expands = true
		st.b.WriteString(w.text(p))
		w.inSubst(int(p.Right.Offset()), p.Stmts, depth)
	case *syntax.ArithmExp:
		st.out.Expands = true
		st.b.WriteString(w.text(p))
		w.arith(p.X, owner, depth)
	case *syntax.ProcSubst:
		st.out.Expands = true
		st.b.WriteString(w.text(p))
		w.inSubst(int(p.Rparen.Offset()), p.Stmts, depth)
	case *syntax.ExtGlob:
		// mvdan always reads @(…) and !(…) as patterns; bash does only
		// after shopt -s extglob, and refuses the line otherwise.
		st.out.Glob = true
		st.b.WriteString(w.text(p))
		w.refuse("the extended glob " + clip(w.text(p)) + " needs shopt -s extglob, and bash refuses it without")
	default:
		// A node this package does not know (a newer dialect's): what
		// it expands to is unknown.
		st.out.Expands = true
		st.b.WriteString(w.text(p))
		setComputed(owner, "it holds a construct Moteur does not read ("+w.text(p)+")")
	}
}

// inSubst walks the commands of a substitution that ends at offset end.
func (w *walker) inSubst(end int, stmts []*syntax.Stmt, depth int) {
	prev := w.substEnd
	w.substEnd = end
	w.stmts(stmts, nil, false, depth+1)
	w.substEnd = prev
}

// unquoted appends an unquoted literal, removing its backslashes, and
// notes the characters that make it a pattern.
func (st *wordState) unquoted(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 >= len(s) {
				st.b.WriteByte('\\') // a trailing backslash is itself
				continue
			}
			i++
			if s[i] != '\n' { // backslash-newline joins lines
				st.b.WriteByte(s[i])
			}
			continue
		case '*', '?':
			st.out.Glob = true
		case '[':
			// Only a bracket expression with its ']' is a pattern;
			// `[` alone (the test command) is a plain word.
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				st.out.Glob = true
			}
		case '{':
			st.braceOpen++
		case ',':
			if st.braceOpen > 0 {
				st.braceSep = true
			}
		case '.':
			if st.braceOpen > 0 && i+1 < len(s) && s[i+1] == '.' {
				st.braceSep = true
			}
		case '}':
			if st.braceOpen > 0 {
				st.braceOpen--
				if st.braceSep {
					st.out.Glob = true
				}
			}
		}
		st.b.WriteByte(c)
	}
}

// The bytes a backslash escapes in a double-quoted string, and in the
// body of an expanded here-document, where a double quote keeps it. In
// both, backslash-newline joins lines.
const (
	doubleEscapes  = "$`\"\\"
	heredocEscapes = "$`\\"
)

// unescape removes the backslashes that escape one of the bytes of
// escapes, and each backslash-newline.
func unescape(s, escapes string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] == '\n' {
				i++
				continue
			}
			if strings.IndexByte(escapes, s[i+1]) >= 0 {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a $'…' string as bash does. A NUL ends the
// string, as it ends any C string bash hands to a program.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(n))
			i = j - 1
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for ; j < len(s) && j <= i+width && isHex(s[j]); j++ {
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if n <= utf8.MaxRune {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	out := b.String()
	if k := strings.IndexByte(out, 0); k >= 0 {
		out = out[:k]
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// param checks a parameter expansion for the forms that make bash run
// code found in a variable's value, and walks the words inside it.
func (w *walker) param(p *syntax.ParamExp, owner *Command, depth int) {
	if p.Excl && p.Names == 0 && !allElems(p.Index) {
		// ${!x}: the value of x names the variable, and a name such as
		// a[$(cmd)] makes bash evaluate the subscript, running cmd.
		setComputed(owner, "the indirect expansion "+w.text(p)+" can run code held in a variable")
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps {
		// ${x@P} expands the value as a prompt string, and prompt
		// strings run their command substitutions.
		if op := p.Exp.Word; op == nil || op.Lit() != "Q" && op.Lit() != "E" && op.Lit() != "A" &&
			op.Lit() != "a" && op.Lit() != "U" && op.Lit() != "u" && op.Lit() != "L" && op.Lit() != "K" && op.Lit() != "k" {
			setComputed(owner, "the expansion "+w.text(p)+" can run code held in a variable")
		}
	}
	if p.Index != nil && !allElems(p.Index) {
		w.arith(p.Index, owner, depth)
	}
	if p.Slice != nil {
		w.arith(p.Slice.Offset, owner, depth)
		w.arith(p.Slice.Length, owner, depth)
	}
	if p.Repl != nil {
		w.word(p.Repl.Orig, owner, depth)
		w.word(p.Repl.With, owner, depth)
	}
	if p.Exp != nil && p.Exp.Op != syntax.OtherParamOps {
		w.word(p.Exp.Word, owner, depth)
	}
}

// allElems reports the subscripts @ and *, which select every element and
// evaluate nothing.
func allElems(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := wd.Lit()
	return l == "@" || l == "*"
}

// arith walks an arithmetic expression. bash evaluates the value of a
// variable used in one as an expression in turn, and an expression such
// as a[$(cmd)] runs cmd: arithmetic on a variable can run code that no
// reading of the line shows, so it makes the command computed. Constants
// and the special parameters ($#, $?) are numbers and harmless; an
// assignment's target (x=1) is a name, not a value.
func (w *walker) arith(x syntax.ArithmExpr, owner *Command, depth int) {
	switch x := x.(type) {
	case nil:
	case *syntax.Word:
		if name := arithVar(x); name != "" {
			setComputed(owner, "arithmetic on the variable "+name+", whose value bash would evaluate as code")
		}
		w.word(x, owner, depth)
	case *syntax.BinaryArithm:
		if isAssignOp(x.Op) {
			if wd, ok := x.X.(*syntax.Word); ok && wd.Lit() != "" {
				w.arith(x.Y, owner, depth)
				return
			}
		}
		w.arith(x.X, owner, depth)
		w.arith(x.Y, owner, depth)
	case *syntax.UnaryArithm:
		w.arith(x.X, owner, depth)
	case *syntax.ParenArithm:
		w.arith(x.X, owner, depth)
	case *syntax.FlagsArithm:
		w.arith(x.X, owner, depth)
	default:
		setComputed(owner, "it holds an arithmetic construct Moteur does not read")
	}
}

func isAssignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// arithVar returns the variable an arithmetic word reads, or "" for a
// number or a special parameter.
func arithVar(x *syntax.Word) string {
	for _, p := range x.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if v := firstName(p.Value); v != "" {
				return v
			}
		case *syntax.ParamExp:
			if p.Param != nil && !specialParam(p.Param.Value) && !p.Length {
				return p.Param.Value
			}
			if p.Index != nil || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Excl {
				return "$" + paramName(p)
			}
		case *syntax.DblQuoted, *syntax.SglQuoted, *syntax.CmdSubst, *syntax.ArithmExp:
			// Quotes and substitutions produce text that is then
			// evaluated as an expression: not a constant.
			return "(expanded text)"
		}
	}
	return ""
}

// firstName returns the first identifier in an arithmetic literal that is
// not part of a number (0x1f, 2#101, 10), or "".
func firstName(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			// A number, with its base and digits: 0x1f, 64#zZ, 1e3 is
			// not bash arithmetic but is refused later by bash itself.
			j := i
			for j < len(s) && (isAlnum(s[j]) || s[j] == '#' || s[j] == '@' || s[j] == '_') {
				j++
			}
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			return s[i:j]
		default:
			i++
		}
	}
	return ""
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// specialParam reports $#, $?, $$, $!, $- (numbers or fixed flags), which
// no one outside the shell sets.
func specialParam(name string) bool {
	switch name {
	case "#", "?", "$", "!", "-":
		return true
	}
	return false
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return "?"
}

// setComputed records the first reason a command's code is only known at
// run time.
func setComputed(c *Command, why string) {
	if c != nil && c.Computed == "" {
		c.Computed = why
	}
}
