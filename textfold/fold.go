package textfold

// span is the part of a stage's input one output byte comes from.
type span struct{ from, to int32 }

// spans maps each byte of a stage's output to its input; nil means the
// stage changed nothing (the identity).
type spans []span

// out builds a stage's output and, when tracking, its spans.
type out struct {
	b     []byte
	m     spans
	track bool
}

func newOut(n int, track bool) *out {
	o := &out{b: make([]byte, 0, n), track: track}
	if track {
		o.m = make(spans, 0, n)
	}
	return o
}

// add appends text that comes from in[from:to].
func (o *out) add(text string, from, to int) {
	o.b = append(o.b, text...)
	if o.track {
		for range len(text) {
			o.m = append(o.m, span{int32(from), int32(to)})
		}
	}
}

// copyOf appends in[from:to] unchanged.
func (o *out) copyOf(in string, from, to int) {
	o.b = append(o.b, in[from:to]...)
	if o.track {
		for k := from; k < to; k++ {
			o.m = append(o.m, span{int32(k), int32(k + 1)})
		}
	}
}

// addRune appends r, which comes from in[from:to].
func (o *out) addRune(r rune, from, to int) {
	n := len(o.b)
	o.b = appendRune(o.b, r)
	if o.track {
		for range len(o.b) - n {
			o.m = append(o.m, span{int32(from), int32(to)})
		}
	}
}

func (o *out) result() (string, spans) {
	if !o.track {
		return string(o.b), nil
	}
	return string(o.b), o.m
}

// compose returns the spans of b∘a: a maps the middle text to the input, b
// the output to the middle text.
func compose(a, b spans) spans {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	}
	c := make(spans, len(b))
	for i, s := range b {
		c[i] = span{a[s.from].from, a[s.to-1].to}
	}
	return c
}

// stage is one step of folding: it returns in itself (and nil spans) when
// it changes nothing.
type stage func(in string, track bool) (string, spans)

// run applies st and composes its spans onto m.
func run(st stage, s string, m spans, track bool) (string, spans, bool) {
	o, om := st(s, track)
	if o == s && om == nil {
		return s, m, false
	}
	if track {
		if om == nil {
			om = identity(len(o))
		}
		m = compose(m, om)
	}
	return o, m, true
}

func identity(n int) spans {
	m := make(spans, n)
	for i := range m {
		m[i] = span{int32(i), int32(i + 1)}
	}
	return m
}

// maxCharRounds and maxRounds bound the fixpoints: each extra round is
// needed only when one step exposes work for another (an entity decoding
// to a fullwidth letter, emphasis removed from between "\" and "n"), and
// text nested deeper than this is not a disguise a reader sees through.
const (
	maxCharRounds = 8
	maxRounds     = 4
)

var charStages = []stage{decode, dropInvisible, nfkc, mapConfusables}
var structStages = []stage{dropEmphasis, dropLineNumbers, joinAndSpace}

// fold runs the whole folding of s; m maps the result to s when track.
func fold(s string, track bool) (string, spans) {
	var m spans
	for round := 0; round < maxRounds; round++ {
		changed := false
		for range maxCharRounds {
			again := false
			for _, st := range charStages {
				var ch bool
				s, m, ch = run(st, s, m, track)
				again = again || ch
			}
			if !again {
				break
			}
			changed = true
		}
		if round > 0 && !changed {
			break // the structure steps are idempotent: nothing more to do
		}
		for _, st := range structStages {
			s, m, _ = run(st, s, m, track)
		}
	}
	return s, m
}

// Fold returns the folded form of s (see the package documentation); s
// itself when folding changes nothing.
func Fold(s string) string {
	f, _ := fold(s, false)
	return f
}

// Folded is folded text with the map back to its original.
type Folded struct {
	// Text is the folded text.
	Text string
	m    spans // nil: Text is the original
	n    int   // the original's length
}

// Map folds s and keeps, for every byte of the result, the span of s it
// comes from.
func Map(s string) Folded {
	f, m := fold(s, true)
	return Folded{Text: f, m: m, n: len(s)}
}

// Origin returns the span of the original that Text[i:j] comes from:
// from the start of the first byte's origin to the end of the last's, so
// that whatever folding removed in between is inside. An empty or invalid
// span maps to an empty one at the nearest position.
func (f Folded) Origin(i, j int) (int, int) {
	i = max(0, min(i, len(f.Text)))
	j = max(i, min(j, len(f.Text)))
	if f.m == nil {
		return i, j
	}
	if i == j {
		if i < len(f.m) {
			return int(f.m[i].from), int(f.m[i].from)
		}
		return f.n, f.n
	}
	return int(f.m[i].from), int(f.m[j-1].to)
}
