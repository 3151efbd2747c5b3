package shellcmd

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker turns one script's syntax tree into commands. A script given as
// text inside another (bash -c '…', eval '…') gets a walker of its own,
// sharing the output.
type walker struct {
	lang syntax.LangVariant
	src  string
	via  string // Via of this script's own commands
	cmds []*Command
	// tooDeep is set once nesting passed MaxDepth anywhere.
	tooDeep bool
	// substEnd is the offset of the ')' or '`' that closes the innermost
	// substitution being walked, -1 outside any.
	substEnd int
	// refused says why a line mvdan accepts must be refused all the same:
	// bash reads it otherwise (see refuse).
	refused string
}

// refuse records why a line mvdan accepts must be refused all the same,
// bash reading it otherwise: a here-document opened in a substitution
// whose body lies past the substitution's end (mvdan reads that body as
// data, bash ends the substitution first and runs those lines as
// commands), an extended glob without shopt -s extglob, and the like.
func (w *walker) refuse(why string) {
	if w.refused == "" {
		w.refused = why
	}
}

// script parses src and walks it. depth counts the nesting of the scripts
// and substitutions around it.
func (w *walker) script(src string, depth int, via string, pipe bool) error {
	sub := &walker{lang: w.lang, src: src, via: via, substEnd: -1}
	f, err := syntax.NewParser(syntax.Variant(w.lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		// What can be made out of a line that does not parse is still
		// worth showing to deny rules: mvdan's error recovery skips the
		// broken parts.
		f, _ = syntax.NewParser(syntax.Variant(w.lang), syntax.RecoverErrors(8)).Parse(strings.NewReader(src), "")
	}
	if f != nil {
		sub.stmts(f.Stmts, nil, pipe, depth)
	}
	w.cmds = append(w.cmds, sub.cmds...)
	if sub.tooDeep {
		w.tooDeep = true
	}
	if err != nil {
		return &SyntaxError{Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
	}
	if n := len(src) - len(strings.TrimRight(src, "\\")); n%2 == 1 {
		// bash reads a backslash at the very end as a literal after a
		// word but as a line continuation after | or &&; mvdan always as
		// a literal.
		sub.refuse("the line ends with a backslash")
	}
	if sub.refused != "" {
		return &SyntaxError{Err: fmt.Errorf("%w: %s", ErrSyntax, sub.refused)}
	}
	if w.tooDeep {
		return &SyntaxError{Err: fmt.Errorf("%w (more than %d levels)", ErrTooDeep, MaxDepth)}
	}
	return nil
}

// text is a node's source.
func (w *walker) text(n syntax.Node) string {
	return w.span(n.Pos(), n.End())
}

func (w *walker) span(from, to syntax.Pos) string {
	a, b := int(from.Offset()), int(to.Offset())
	if !from.IsValid() || !to.IsValid() || a < 0 || b > len(w.src) || a > b {
		return ""
	}
	return w.src[a:b]
}

func (w *walker) add(c *Command) { w.cmds = append(w.cmds, c) }

func (w *walker) deeper(depth int) bool {
	if depth > MaxDepth {
		w.tooDeep = true
		return true
	}
	return false
}

// stmts walks a list of statements. inherited are the redirections of the
// compound commands around them; pipe reports that their standard input is
// a pipe.
func (w *walker) stmts(list []*syntax.Stmt, inherited []Redir, pipe bool, depth int) {
	if w.deeper(depth) {
		return
	}
	for _, s := range list {
		w.stmt(s, inherited, pipe, depth)
	}
}

func (w *walker) stmt(s *syntax.Stmt, inherited []Redir, pipe bool, depth int) {
	if s == nil || w.deeper(depth) {
		return
	}
	// Redirections are read before the command: the commands in their
	// words (> "$(cmd)", here-document substitutions) run first.
	holder := &Command{}
	redirs := append(append([]Redir(nil), inherited...), w.redirs(s.Redirs, holder, depth)...)
	switch c := s.Cmd.(type) {
	case nil:
		cmd := &Command{Text: w.text(s), Redirs: redirs, Pipe: pipe, Via: w.via, Computed: holder.Computed}
		w.finish(cmd, depth)
	case *syntax.CallExpr:
		w.call(c, s, redirs, holder, pipe, depth)
	case *syntax.BinaryCmd:
		if tc, ok := c.X.Cmd.(*syntax.TimeClause); ok && tc.Stmt == nil {
			w.refuse("`time` with no command before " + c.Op.String()) // bash refuses it, mvdan does not
		}
		w.stmt(c.X, redirs, pipe, depth)
		w.stmt(c.Y, redirs, pipe || c.Op == syntax.Pipe || c.Op == syntax.PipeAll, depth)
	case *syntax.Block:
		w.stmts(c.Stmts, redirs, pipe, depth+1)
	case *syntax.Subshell:
		w.stmts(c.Stmts, redirs, pipe, depth+1)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, redirs, pipe, depth+1)
			w.stmts(ic.Then, redirs, pipe, depth+1)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, redirs, pipe, depth+1)
		w.stmts(c.Do, redirs, pipe, depth+1)
	case *syntax.ForClause:
		loop := &Command{Text: w.span(c.Pos(), c.DoPos), Program: "for", Via: w.via, Noop: true}
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, it := range l.Items {
				w.word(it, loop, depth)
			}
		case *syntax.CStyleLoop:
			w.arith(l.Init, loop, depth)
			w.arith(l.Cond, loop, depth)
			w.arith(l.Post, loop, depth)
		}
		if loop.Computed != "" {
			loop.Noop = false
			w.add(loop)
		}
		w.stmts(c.Do, redirs, pipe, depth+1)
	case *syntax.CaseClause:
		cs := &Command{Text: w.span(c.Case, c.In), Program: "case", Via: w.via}
		w.word(c.Word, cs, depth)
		for _, it := range c.Items {
			for _, pat := range it.Patterns {
				w.word(pat, cs, depth)
			}
		}
		cs.Noop = cs.Computed == ""
		if !cs.Noop {
			w.add(cs)
		}
		for _, it := range c.Items {
			w.stmts(it.Stmts, redirs, pipe, depth+1)
		}
	case *syntax.FuncDecl:
		// The body runs where the function is called, with the
		// redirections of that call; its commands are the line's all the
		// same.
		switch c.Body.Cmd.(type) {
		case *syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
			*syntax.CaseClause, *syntax.ArithmCmd, *syntax.TestClause:
		default:
			// mvdan takes any command; bash only a compound one.
			w.refuse("a function body must be a compound command for bash")
		}
		w.stmt(c.Body, nil, false, depth+1)
	case *syntax.ArithmCmd:
		cmd := &Command{Text: w.text(s), Program: "((", Redirs: redirs, Pipe: pipe, Via: w.via}
		w.arith(c.X, cmd, depth)
		w.finish(cmd, depth)
	case *syntax.TestClause:
		cmd := &Command{Text: w.text(s), Program: "[[", Redirs: redirs, Pipe: pipe, Via: w.via}
		w.test(c.X, cmd, depth)
		w.finish(cmd, depth)
	case *syntax.LetClause:
		cmd := &Command{Text: w.text(s), Program: "let", Words: []Word{{Text: "let", Literal: true}}, Redirs: redirs, Pipe: pipe, Via: w.via}
		for _, x := range c.Exprs {
			w.arith(x, cmd, depth)
		}
		w.finish(cmd, depth)
	case *syntax.DeclClause:
		w.decl(c, s, redirs, pipe, depth)
	case *syntax.TimeClause:
		if c.Stmt == nil && s.Background {
			w.refuse("`time` with no command before &") // bash refuses it, mvdan does not
		}
		w.stmt(c.Stmt, redirs, pipe, depth)
	case *syntax.CoprocClause:
		if c.Name != nil {
			w.word(c.Name, holder, depth)
		}
		w.stmt(c.Stmt, redirs, false, depth)
	default:
		w.add(&Command{Text: w.text(s), Redirs: redirs, Via: w.via,
			Computed: fmt.Sprintf("it uses a construct Moteur does not read (%T)", c)})
	}
}

// redirs converts a statement's redirections.
func (w *walker) redirs(list []*syntax.Redirect, owner *Command, depth int) []Redir {
	var out []Redir
	for _, r := range list {
		out = append(out, w.redir(r, owner, depth))
	}
	return out
}

func (w *walker) redir(r *syntax.Redirect, owner *Command, depth int) Redir {
	out := Redir{Op: r.Op.String()}
	if r.N != nil {
		out.Fd = r.N.Value
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		// The delimiter is not expanded; quoting any of it makes the
		// body literal, otherwise the body is expanded like "…".
		out.Target = w.word(r.Word, nil, depth)
		out.Target.Literal, out.Target.Expands, out.Target.Glob = true, false, false
		if r.Hdoc != nil && w.substEnd >= 0 && int(r.Hdoc.End().Offset()) > w.substEnd {
			w.refuse("a here-document opened inside $(…) or `…` has its body after the substitution's end, which bash reads as commands")
		}
		if r.Hdoc != nil {
			if hasQuote(r.Word) {
				out.Body, out.BodyLiteral = litText(r.Hdoc), true
			} else {
				out.Body, out.BodyLiteral = w.hdoc(r.Hdoc, owner, depth)
			}
		} else {
			out.BodyLiteral = true
		}
		return out
	}
	out.Target = w.word(r.Word, owner, depth)
	if len(r.Word.Parts) == 1 {
		if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
			// > >(tee log) writes to a pipe; the command in it is
			// judged on its own.
			return out
		}
	}
	if end := int(r.Word.End().Offset()); r.Word.Lit() != "" && isDigits(r.Word.Lit()) && end < len(w.src) &&
		(w.src[end] == '<' || w.src[end] == '>') {
		// `>0>f`: bash reads the 0 as the next redirection's descriptor
		// and the first one has no target.
		w.refuse("a redirection target made of digits right before < or >")
	}
	switch r.Op {
	case syntax.RdrOut, syntax.ClbOut, syntax.RdrAll:
		out.Opens, out.Truncates = true, true
	case syntax.AppOut, syntax.AppAll:
		out.Opens = true
	case syntax.RdrInOut:
		out.Opens = true // created when missing, never truncated
	case syntax.DplOut:
		// >&2 and >&- duplicate or close; >&file writes file like &>.
		if !out.Target.Literal || !isDigits(out.Target.Text) && out.Target.Text != "-" {
			out.Opens, out.Truncates = true, true
		}
	}
	return out
}

// hdoc walks the body of a here-document whose delimiter is unquoted:
// its substitutions run, and a backslash escapes only $ ` \ and newline.
func (w *walker) hdoc(x *syntax.Word, owner *Command, depth int) (string, bool) {
	var b strings.Builder
	literal := true
	for _, p := range x.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(unescape(l.Value, heredocEscapes))
			continue
		}
		literal = false
		var st wordState
		w.part(p, &st, true, false, owner, depth)
		b.WriteString(st.b.String())
	}
	return b.String(), literal
}

// litText joins the literal parts of a word: a quoted here-document's
// body is one.
func litText(x *syntax.Word) string {
	var b strings.Builder
	for _, p := range x.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		}
	}
	return b.String()
}

// hasQuote reports a word with quotes or backslashes, which make a
// here-document's body literal.
func hasQuote(x *syntax.Word) bool {
	if x == nil {
		return false
	}
	for _, p := range x.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				return true
			}
		}
	}
	return false
}

// call converts a simple command.
func (w *walker) call(c *syntax.CallExpr, s *syntax.Stmt, redirs []Redir, holder *Command, pipe bool, depth int) {
	from, to := c.Pos(), c.End()
	for _, r := range s.Redirs {
		if r.Pos().Offset() < from.Offset() {
			from = r.Pos()
		}
		if r.End().Offset() > to.Offset() {
			to = r.End()
		}
	}
	if len(c.Assigns) == 0 && len(c.Args) > 0 && c.Args[0].Lit() == "in" {
		// mvdan takes `in` for a command; bash, a misplaced keyword.
		w.refuse("`in` is a reserved word")
	}
	cmd := &Command{Text: w.span(from, to), Redirs: redirs, Pipe: pipe, Via: w.via, Computed: holder.Computed}
	for _, a := range c.Assigns {
		cmd.Assigns = append(cmd.Assigns, w.assign(a, cmd, depth))
	}
	for _, x := range c.Args {
		cmd.Words = append(cmd.Words, w.word(x, cmd, depth))
	}
	w.finish(cmd, depth)
}

// assign converts one assignment, walking its value and subscript.
func (w *walker) assign(a *syntax.Assign, owner *Command, depth int) Assign {
	out := Assign{}
	if a.Name != nil {
		out.Name = a.Name.Value
	}
	if a.Index != nil {
		out.Array = true
		w.arith(a.Index, owner, depth)
	}
	if a.Array != nil {
		out.Array = true
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				w.arith(e.Index, owner, depth)
			}
			w.word(e.Value, owner, depth)
		}
	}
	if a.Value != nil {
		out.Value = w.word(a.Value, owner, depth)
	} else {
		out.Value = Word{Literal: true}
	}
	return out
}

// decl converts declare, local, export, readonly, typeset and nameref.
func (w *walker) decl(c *syntax.DeclClause, s *syntax.Stmt, redirs []Redir, pipe bool, depth int) {
	cmd := &Command{Text: w.text(s), Redirs: redirs, Pipe: pipe, Via: w.via}
	variant := c.Variant.Value
	cmd.Words = append(cmd.Words, Word{Text: variant, Literal: true})
	for _, a := range c.Args {
		if a.Naked && a.Name == nil {
			// An option, or a word only known at run time.
			v := w.word(a.Value, cmd, depth)
			if !v.Literal {
				setComputed(cmd, variant+" with an argument computed at run time can set any variable")
			} else if strings.Contains(v.Text, "[") {
				setComputed(cmd, variant+" "+v.Text+": bash evaluates the subscript of a variable name")
			}
			cmd.Words = append(cmd.Words, v)
			continue
		}
		as := w.assign(a, cmd, depth)
		cmd.Assigns = append(cmd.Assigns, as)
		cmd.Words = append(cmd.Words, Word{Text: w.text(a), Literal: as.Value.Literal})
	}
	cmd.Program = variant
	w.finish(cmd, depth)
}

// test walks a [[ … ]] expression. Its arithmetic comparisons evaluate
// their operands as expressions, and -v evaluates a subscript.
func (w *walker) test(x syntax.TestExpr, owner *Command, depth int) {
	switch x := x.(type) {
	case *syntax.Word:
		w.word(x, owner, depth)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if wd, ok := side.(*syntax.Word); ok {
					w.arith(wd, owner, depth)
				} else {
					w.test(side, owner, depth)
				}
			}
			return
		}
		w.test(x.X, owner, depth)
		w.test(x.Y, owner, depth)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if wd, ok := x.X.(*syntax.Word); ok {
				if v := w.word(wd, owner, depth); !v.Literal || strings.Contains(v.Text, "[") {
					setComputed(owner, "[[ -v "+v.Text+" ]]: bash evaluates the subscript of a variable name")
				}
				return
			}
		}
		w.test(x.X, owner, depth)
	case *syntax.ParenTest:
		w.test(x.X, owner, depth)
	}
}

// finish completes a command — its program, what it reaches, whether it
// is a no-op — and adds it to the line with the commands it reaches.
func (w *walker) finish(cmd *Command, depth int) {
	for _, a := range cmd.Assigns {
		if EnvOf(a.Name, a.Value.Text) == EnvRefused {
			setComputed(cmd, "it sets "+a.Name+", which can change what programs run")
		}
	}
	if cmd.Program == "" && len(cmd.Words) > 0 {
		first := cmd.Words[0]
		if !first.Literal {
			setComputed(cmd, "its program name is computed at run time ("+clip(first.Text)+")")
		} else {
			cmd.Program = first.Text
			if strings.Contains(first.Text, "/") {
				cmd.Program = path.Base(first.Text)
			}
		}
	}
	cmd.Noop = noop(cmd)
	w.add(cmd)
	if cmd.Program != "" && len(cmd.Words) > 0 {
		w.reach(cmd, depth)
	}
}

// noop reports a command that runs no program and changes nothing outside
// the shell: assignments to ordinary variables, a redirection that only
// reads, (( )) and [[ ]] on constants, declare and export of ordinary
// variables.
func noop(cmd *Command) bool {
	if cmd.Computed != "" || cmd.WritesFile() {
		return false
	}
	for _, r := range cmd.Redirs {
		if r.Network() {
			return false
		}
	}
	for _, a := range cmd.Assigns {
		if c := EnvOf(a.Name, a.Value.Text); c == EnvRisky || c == EnvRefused {
			return false
		}
	}
	switch cmd.Program {
	case "":
		return len(cmd.Words) == 0
	case "((", "[[", "let":
		return true
	case "declare", "local", "export", "readonly", "typeset":
		for _, wd := range cmd.Words[1:] {
			// Options that change what a name means or prints
			// functions are not plain assignments.
			if strings.HasPrefix(wd.Text, "-") && strings.ContainsAny(wd.Text, "nf") {
				return false
			}
		}
		return true
	}
	return false
}

func clip(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// guess walks the text of a script only known at run time (eval "rm
// $f"), expansions as written, for what can be made out of it: the
// command that runs it is computed already, and deny rules and risk
// classes still meet the commands its text shows. Text that does not
// parse adds nothing.
func (w *walker) guess(script, via string, depth int) {
	if w.deeper(depth + 1) {
		return
	}
	inner := &walker{lang: w.lang, substEnd: -1}
	if inner.script(script, depth+1, via, false) == nil {
		w.cmds = append(w.cmds, inner.cmds...)
	}
}

// sub walks a script given as text to cmd (bash -c, eval, trap), whose
// commands are reached via via. A script that does not parse makes cmd
// computed: bash might read it otherwise.
func (w *walker) sub(cmd *Command, script, via string, pipe bool, depth int) {
	if w.deeper(depth + 1) {
		setComputed(cmd, "scripts nested too deeply")
		return
	}
	inner := &walker{lang: w.lang, substEnd: -1}
	err := inner.script(script, depth+1, via, pipe)
	w.cmds = append(w.cmds, inner.cmds...)
	if inner.tooDeep {
		w.tooDeep = true
	}
	if err != nil {
		setComputed(cmd, "the script it runs cannot be read ("+err.Error()+")")
	}
}
