package parse

import (
	"fmt"
	"math"

	"github.com/ledongthuc/pdf"
)

// pdfGlyph is one character shown on a page, in user space.
type pdfGlyph struct {
	x, y float64 // origin
	w    float64 // advance
	size float64 // font size as drawn
	text string  // "" for a code that shows no known character
}

// matrix is a PDF transformation [a b c d e f]; points are row vectors.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul is m × n: apply m, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// textState is the part of the graphics state text showing uses.
type textState struct {
	ctm      matrix
	font     *pdfFont
	size     float64
	charSp   float64
	wordSp   float64
	hscale   float64
	leading  float64
	rise     float64
	fontName string
}

// operand is a content-stream operand; strings and names point into the
// run's arena and live until the next operator.
type operand struct {
	kind pdfTokKind
	num  float64
	str  []byte
	arr  []operand
}

// Bounds on the work one document may cause.
const (
	maxFormDepth  = 8
	maxStateDepth = 256
	maxOperands   = 1 << 12
)

// pdfExtractor turns page content into glyphs. Fonts are loaded once per
// document (keyed by their dictionary), since pages share them.
type pdfExtractor struct {
	fonts  map[string]*pdfFont
	forms  map[string][]byte // decoded form XObject content, by stream
	budget int               // operators left for the whole document
	// inflate is how many bytes of content streams may still be decoded:
	// a deflate bomb or a form drawn a million times stops there.
	inflate int64
	glyphs  []pdfGlyph
}

func newPDFExtractor(size int) *pdfExtractor {
	return &pdfExtractor{fonts: map[string]*pdfFont{}, forms: map[string][]byte{},
		budget: 64*size + 1<<20, inflate: 32*int64(size) + 256<<20}
}

// content decodes a content stream within the document's budget.
func (x *pdfExtractor) content(v pdf.Value) []byte {
	if x.inflate <= 0 {
		return nil
	}
	data, _ := streamBytes(v, x.inflate)
	x.inflate -= int64(len(data))
	return data
}

// page returns the glyphs of a page in content order.
func (x *pdfExtractor) page(p pdf.Value) []pdfGlyph {
	x.glyphs = x.glyphs[:0]
	res := inherited(p, "Resources")
	contents := p.Key("Contents")
	var data []byte
	switch contents.Kind() {
	case pdf.Stream:
		data = x.content(contents)
	case pdf.Array:
		for i := range min(contents.Len(), 1<<12) {
			data = append(append(data, x.content(contents.Index(i))...), '\n')
		}
	}
	x.run(data, res, identity, 0)
	return x.glyphs
}

// inherited looks key up in the page and its ancestors.
func inherited(p pdf.Value, key string) pdf.Value {
	for range maxPageTreeDepth {
		if v := p.Key(key); !v.IsNull() {
			return v
		}
		if p = p.Key("Parent"); p.Kind() != pdf.Dict {
			break
		}
	}
	return pdf.Value{}
}

// runState is the state of one content stream being interpreted.
type runState struct {
	x        *pdfExtractor
	res      pdf.Value
	fonts    map[string]*pdfFont // by resource name
	fontRes  pdf.Value           // the Font resource dictionary, once looked up
	fontRefs map[string]string   // its indirect entries: name → "12 0 R"
	gs       textState
	stack    []textState
	tm, tlm  matrix
	depth    int
}

// run interprets a content stream with its resources under ctm.
func (x *pdfExtractor) run(data []byte, res pdf.Value, ctm matrix, depth int) {
	s := &runState{x: x, res: res, fonts: map[string]*pdfFont{}, depth: depth,
		gs: textState{ctm: ctm, hscale: 1}, tm: identity, tlm: identity}
	l := &pdfLexer{data: data}
	var ops []operand
	var arena []byte
	var arr []operand // the array being read, inArr when open
	inArr := false
	for x.budget > 0 {
		t := l.next()
		switch t.kind {
		case tokEOF:
			return
		case tokNum:
			o := operand{kind: tokNum, num: t.num}
			if inArr {
				arr = append(arr, o)
			} else if len(ops) < maxOperands {
				ops = append(ops, o)
			}
		case tokStr, tokName:
			start := len(arena)
			arena = append(arena, t.str...)
			o := operand{kind: t.kind, str: arena[start:len(arena):len(arena)]}
			if inArr {
				arr = append(arr, o)
			} else if len(ops) < maxOperands {
				ops = append(ops, o)
			}
		case tokArrOpen:
			inArr, arr = true, arr[:0]
		case tokArrClose:
			if inArr {
				ops = append(ops, operand{kind: tokArrOpen, arr: arr})
				inArr = false
			}
		case tokDictOpen:
			skipDict(l)
			ops = append(ops, operand{kind: tokDictOpen})
		case tokOp:
			x.budget--
			if inArr {
				inArr = false // an operator inside an array: the array was broken
			}
			op := string(t.str)
			if op == "BI" {
				l.skipInlineImage()
			} else {
				s.do(op, ops)
			}
			// The operands (and the array a TJ had) are done with: their
			// storage is reused.
			ops, arena = ops[:0], arena[:0]
		}
	}
}

// skipDict moves past a dictionary whose "<<" is consumed (marked-content
// properties, inline image parameters): nothing in it is text.
func skipDict(l *pdfLexer) {
	depth := 1
	for depth > 0 {
		switch l.next().kind {
		case tokEOF:
			return
		case tokDictOpen:
			depth++
		case tokDictClose:
			depth--
		}
	}
}

func nums(ops []operand, n int) ([]float64, bool) {
	if len(ops) < n {
		return nil, false
	}
	out := make([]float64, n)
	for i, o := range ops[len(ops)-n:] {
		if o.kind != tokNum {
			return nil, false
		}
		out[i] = o.num
	}
	return out, true
}

func num(ops []operand) (float64, bool) {
	if len(ops) == 0 || ops[len(ops)-1].kind != tokNum {
		return 0, false
	}
	return ops[len(ops)-1].num, true
}

func (s *runState) do(op string, ops []operand) {
	switch op {
	case "q":
		if len(s.stack) < maxStateDepth {
			s.stack = append(s.stack, s.gs)
		}
	case "Q":
		if n := len(s.stack); n > 0 {
			s.gs, s.stack = s.stack[n-1], s.stack[:n-1]
		}
	case "cm":
		if v, ok := nums(ops, 6); ok {
			s.gs.ctm = matrix(v).mul(s.gs.ctm)
		}
	case "BT":
		s.tm, s.tlm = identity, identity
	case "Tf":
		if len(ops) >= 2 && ops[len(ops)-2].kind == tokName {
			s.gs.fontName = string(ops[len(ops)-2].str)
			s.gs.font = s.font(s.gs.fontName)
			s.gs.size, _ = num(ops)
		}
	case "Tc":
		s.gs.charSp, _ = num(ops)
	case "Tw":
		s.gs.wordSp, _ = num(ops)
	case "Tz":
		if v, ok := num(ops); ok {
			s.gs.hscale = v / 100
		}
	case "TL":
		s.gs.leading, _ = num(ops)
	case "Ts":
		s.gs.rise, _ = num(ops)
	case "Td", "TD":
		if v, ok := nums(ops, 2); ok {
			if op == "TD" {
				s.gs.leading = -v[1]
			}
			s.nextLine(v[0], v[1])
		}
	case "Tm":
		if v, ok := nums(ops, 6); ok {
			s.tm, s.tlm = matrix(v), matrix(v)
		}
	case "T*":
		s.nextLine(0, -s.gs.leading)
	case "Tj":
		s.showLast(ops)
	case "'":
		s.nextLine(0, -s.gs.leading)
		s.showLast(ops)
	case "\"":
		if v, ok := nums(ops[:max(len(ops)-1, 0)], 2); ok {
			s.gs.wordSp, s.gs.charSp = v[0], v[1]
		}
		s.nextLine(0, -s.gs.leading)
		s.showLast(ops)
	case "TJ":
		if len(ops) > 0 && ops[len(ops)-1].kind == tokArrOpen {
			for _, o := range ops[len(ops)-1].arr {
				switch o.kind {
				case tokStr:
					s.show(o.str)
				case tokNum:
					s.advance(-o.num / 1000 * s.gs.size * s.gs.hscale)
				}
			}
		}
	case "Do":
		if len(ops) > 0 && ops[len(ops)-1].kind == tokName {
			s.form(string(ops[len(ops)-1].str))
		}
	}
}

func (s *runState) nextLine(tx, ty float64) {
	s.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(s.tlm)
	s.tm = s.tlm
}

// advance moves the text matrix tx along its x axis: [1 0 0 1 tx 0] × tm.
func (s *runState) advance(tx float64) {
	s.tm[4] += tx * s.tm[0]
	s.tm[5] += tx * s.tm[1]
}

func (s *runState) showLast(ops []operand) {
	if len(ops) > 0 && ops[len(ops)-1].kind == tokStr {
		s.show(ops[len(ops)-1].str)
	}
}

// show lays out the glyphs of a string and moves the text matrix past
// them. Within a string the text matrix only moves along its own x
// axis, so the glyph positions follow from the matrix of the first.
func (s *runState) show(str []byte) {
	f := s.gs.font
	if f == nil {
		f = s.font("") // no Tf: a default font still advances
	}
	g := &s.gs
	m := s.tm.mul(g.ctm)
	sx, sy := math.Hypot(m[0], m[1]), math.Hypot(m[2], m[3])
	size := math.Abs(g.size) * sy
	x0, y0 := m[4]+g.rise*m[2], m[5]+g.rise*m[3]
	adv := 0.0 // text space advance so far
	if !f.composite {
		// The common case, without the callback: one byte, one glyph.
		for _, c := range str {
			w := f.byteWidth[c]
			s.x.glyphs = append(s.x.glyphs, pdfGlyph{x: x0 + adv*m[0], y: y0 + adv*m[1],
				w: w * g.size * g.hscale * sx, size: size, text: f.byteText[c]})
			tx := w*g.size + g.charSp
			if c == ' ' {
				tx += g.wordSp
			}
			adv += tx * g.hscale
		}
		s.advance(adv)
		return
	}
	f.decode(str, func(text string, w float64, single bool) {
		s.x.glyphs = append(s.x.glyphs, pdfGlyph{x: x0 + adv*m[0], y: y0 + adv*m[1],
			w: w * g.size * g.hscale * sx, size: size, text: text})
		tx := w*g.size + g.charSp
		if single {
			tx += g.wordSp
		}
		adv += tx * g.hscale
	})
	s.advance(adv)
}

// font returns the font of a resource name, loaded once per document.
// A font the resources refer to as "12 0 R" is found by that reference
// without resolving it again: resolving an object of a compressed object
// stream decompresses the whole stream.
func (s *runState) font(name string) *pdfFont {
	if f, ok := s.fonts[name]; ok {
		return f
	}
	if s.fontRes.IsNull() {
		s.fontRes = s.res.Key("Font")
		s.fontRefs = resourceRefs(s.fontRes.String())
	}
	key, ok := s.fontRefs[name]
	f, cached := s.x.fonts[key]
	if !ok || !cached {
		v := s.fontRes.Key(name)
		if !ok {
			key = v.String()
		}
		if f, cached = s.x.fonts[key]; !cached {
			f = loadFont(v)
			s.x.fonts[key] = f
		}
	}
	s.fonts[name] = f
	return f
}

// resourceRefs reads the indirect entries of a resource dictionary as
// printed by pdf.Value.String ("<</F1 12 0 R /F2 <<…>>>>"): name → "12 0 R".
func resourceRefs(dict string) map[string]string {
	refs := map[string]string{}
	l := &pdfLexer{data: []byte(dict)}
	var toks [4]pdfToken
	var names [4]string
	for {
		t := l.next()
		if t.kind == tokEOF {
			return refs
		}
		copy(toks[:], toks[1:])
		copy(names[:], names[1:])
		toks[3], names[3] = t, string(t.str)
		if t.kind == tokOp && names[3] == "R" && toks[0].kind == tokName && toks[1].kind == tokNum && toks[2].kind == tokNum {
			refs[names[0]] = fmt.Sprintf("%g %g R", toks[1].num, toks[2].num)
		}
	}
}

// form runs a form XObject's content with its own matrix and resources.
func (s *runState) form(name string) {
	if s.depth >= maxFormDepth {
		return
	}
	xo := s.res.Key("XObject").Key(name)
	if xo.Kind() != pdf.Stream || xo.Key("Subtype").Name() != "Form" {
		return
	}
	key := xo.String() // a stream's string holds its offset: one per object
	data, ok := s.x.forms[key]
	if !ok {
		data = s.x.content(xo)
		s.x.forms[key] = data
	}
	// Drawing a form is work even when its content is cached.
	if s.x.budget -= len(data) / 16; s.x.budget <= 0 {
		return
	}
	m := identity
	if mv := xo.Key("Matrix"); mv.Len() == 6 {
		for i := range 6 {
			m[i] = mv.Index(i).Float64()
		}
	}
	res := xo.Key("Resources")
	if res.Kind() != pdf.Dict {
		res = s.res
	}
	s.x.run(data, res, m.mul(s.gs.ctm), s.depth+1)
}
