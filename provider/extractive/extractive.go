package extractive

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// ---- The prompt format ----

// Source is one passage handed to a model, with what it cites it by.
type Source struct {
	// ID is the citation key, e.g. "c1"; answers cite it as "[c1]".
	ID       string
	Title    string
	Headings string
	Text     string
}

// Markers of the prompt format.
const (
	SourcesOpen    = "<sources>"
	SourcesClose   = "</sources>"
	QuestionPrefix = "Question: "
)

const (
	sourceOpen  = "<source"
	sourceClose = "\n</source>"
)

var (
	attrEscaper = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;")
	// attrUnescaper also reads the references a hand-written or
	// html-escaped prompt may hold.
	attrUnescaper = strings.NewReplacer("&amp;", "&", "&quot;", `"`, "&#10;", "\n", "&#13;", "\r",
		"&#34;", `"`, "&#39;", "'", "&apos;", "'", "&lt;", "<", "&gt;", ">")
)

// FormatSources renders sources as a <sources> block, without a final
// newline. Headings is left out when empty.
func FormatSources(sources []Source) string {
	var b strings.Builder
	b.WriteString(SourcesOpen + "\n")
	for _, s := range sources {
		b.WriteString(sourceOpen)
		writeAttr(&b, "id", s.ID)
		writeAttr(&b, "title", s.Title)
		if s.Headings != "" {
			writeAttr(&b, "headings", s.Headings)
		}
		b.WriteString(">\n")
		b.WriteString(restuff(s.Text, +1))
		b.WriteString(sourceClose + "\n")
	}
	b.WriteString(SourcesClose)
	return b.String()
}

func writeAttr(b *strings.Builder, name, value string) {
	b.WriteString(" " + name + `="`)
	b.WriteString(attrEscaper.Replace(value))
	b.WriteString(`"`)
}

// FormatPrompt renders the user message of a quick-answer request: the
// sources, a blank line, then the question, trimmed.
func FormatPrompt(sources []Source, question string) string {
	return FormatSources(sources) + "\n\n" + QuestionPrefix + strings.TrimSpace(question)
}

// ParsePrompt reads back what FormatPrompt wrote; the <sources> block may
// also follow a preamble, on a line of its own. ok is false when there is no
// well-formed block. The question is what follows the block, without its
// "Question:" prefix and trimmed ("" when absent).
func ParsePrompt(text string) (sources []Source, question string, ok bool) {
	rest, ok := afterSourcesOpen(text)
	if !ok {
		return nil, "", false
	}
	for {
		rest = strings.TrimLeft(rest, " \t\r\n")
		if after, closed := strings.CutPrefix(rest, SourcesClose); closed {
			return sources, parseQuestion(after), true
		}
		var s Source
		if s, rest, ok = parseSource(rest); !ok {
			return nil, "", false
		}
		sources = append(sources, s)
	}
}

func afterSourcesOpen(text string) (string, bool) {
	text = strings.TrimLeft(text, " \t\r\n")
	if after, ok := strings.CutPrefix(text, SourcesOpen+"\n"); ok {
		return after, true
	}
	if i := strings.Index(text, "\n"+SourcesOpen+"\n"); i >= 0 {
		return text[i+len(SourcesOpen)+2:], true
	}
	return "", false
}

func parseQuestion(after string) string {
	q := strings.TrimSpace(after)
	q, _ = strings.CutPrefix(q, strings.TrimSpace(QuestionPrefix))
	return strings.TrimSpace(q)
}

// parseSource reads one <source …>…</source> element at the start of s.
func parseSource(s string) (Source, string, bool) {
	s, ok := strings.CutPrefix(s, sourceOpen)
	if !ok || (!strings.HasPrefix(s, " ") && !strings.HasPrefix(s, ">")) {
		return Source{}, "", false
	}
	src, s, ok := parseAttrs(s)
	if !ok {
		return Source{}, "", false
	}
	if s, ok = strings.CutPrefix(s, "\n"); !ok {
		return Source{}, "", false
	}
	end := strings.Index(s, sourceClose)
	if end < 0 {
		return Source{}, "", false
	}
	src.Text = restuff(s[:end], -1)
	return src, s[end+len(sourceClose):], true
}

// parseAttrs reads name="value" pairs up to the ">" that ends the tag. A
// value holds no '"' (it is escaped), so a ">" inside one is plain text.
func parseAttrs(s string) (Source, string, bool) {
	var src Source
	for {
		s = strings.TrimLeft(s, " \t")
		if rest, ok := strings.CutPrefix(s, ">"); ok {
			return src, rest, true
		}
		eq := strings.Index(s, `="`)
		if eq <= 0 || strings.ContainsAny(s[:eq], " \t\r\n<>\"") {
			return Source{}, "", false
		}
		name := s[:eq]
		s = s[eq+2:]
		end := strings.IndexByte(s, '"')
		if end < 0 {
			return Source{}, "", false
		}
		value := attrUnescaper.Replace(s[:end])
		s = s[end+1:]
		switch name {
		case "id":
			src.ID = value
		case "title":
			src.Title = value
		case "headings":
			src.Headings = value
		}
	}
}

// restuff adds (delta +1) or removes (delta -1) one backslash after the "<"
// of every "<\…\/source" with any number of backslashes, so that a passage
// never holds "</source" and what is added is exactly what is removed.
func restuff(s string, delta int) string {
	if !strings.Contains(s, "/source") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
		k := len(s) - len(strings.TrimLeft(s, `\`))
		if !strings.HasPrefix(s[k:], "/source") {
			continue
		}
		b.WriteString(strings.Repeat(`\`, max(k+delta, 0)))
		s = s[k:]
	}
}

// ---- The provider ----

// Config configures a Provider. Zero values are defaults.
type Config struct {
	// Lang is the language of the answer's own words: "fr" (default) or
	// "en"; any other value gives French.
	Lang string
	// MaxPassages is the number of passages quoted; 0 means 3.
	MaxPassages int
	// MaxSentences is the number of sentences quoted per passage; 0 means 3.
	MaxSentences int
}

// Provider answers from the passages of the request. It is safe for
// concurrent use.
type Provider struct {
	words        phrases
	maxPassages  int
	maxSentences int
}

var _ provider.Provider = (*Provider)(nil)

// phrases are the answer's own words in one language.
type phrases struct {
	header, noMatch, noSources string
}

var (
	french = phrases{
		header:    "Réponse extraite des documents, sans modèle de langage (aucun modèle configuré).",
		noMatch:   "Les documents trouvés ne semblent pas répondre à la question. Documents consultés :",
		noSources: "Aucun passage pertinent n'a été trouvé dans les bases de connaissances.",
	}
	english = phrases{
		header:    "Answer extracted from the documents, without a language model (no model configured).",
		noMatch:   "The documents found do not seem to answer the question. Documents consulted:",
		noSources: "No relevant passage was found in the knowledge bases.",
	}
)

// New returns a Provider.
func New(cfg Config) *Provider {
	p := &Provider{words: french, maxPassages: cfg.MaxPassages, maxSentences: cfg.MaxSentences}
	if strings.EqualFold(strings.TrimSpace(cfg.Lang), "en") {
		p.words = english
	}
	if p.maxPassages <= 0 {
		p.maxPassages = 3
	}
	if p.maxSentences <= 0 {
		p.maxSentences = 3
	}
	return p
}

// Name implements provider.Provider.
func (p *Provider) Name() string { return "extractive" }

// Model implements provider.Provider.
func (p *Provider) Model() string { return "extractive" }

// Local reports true: nothing leaves the process, so the engine may route
// sensitive sessions here.
func (p *Provider) Local() bool { return true }

// Stream answers from the sources in the last user message, one delta per
// paragraph. The response has Finish stop and a zero Usage. The only error
// is the context's, returned as it is.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	paragraphs := p.answer(lastUserMessage(req.Messages))
	for i, para := range paragraphs {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		if i < len(paragraphs)-1 {
			paragraphs[i] = para + "\n\n"
		}
		if onDelta != nil {
			onDelta(llm.Delta{Text: paragraphs[i]})
		}
	}
	return llm.Response{
		Text:      strings.Join(paragraphs, ""),
		Finish:    llm.FinishStop,
		RawFinish: string(llm.FinishStop),
		Usage:     &llm.Usage{},
		Model:     p.Model(),
	}, nil
}

func lastUserMessage(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// answer returns the paragraphs of the answer to prompt.
func (p *Provider) answer(prompt string) []string {
	out := []string{p.words.header}
	sources, question, ok := ParsePrompt(prompt)
	if !ok || len(sources) == 0 {
		return append(out, p.words.noSources)
	}
	matches := p.rank(sources, keywords(question))
	if len(matches) == 0 {
		return append(out, p.words.noMatch+"\n"+titleList(sources))
	}
	for _, m := range matches {
		out = append(out, "> "+m.quote+citation(m.source))
	}
	return out
}

// citation is " [c1] — Title", each part when present.
func citation(s Source) string {
	var c string
	if s.ID != "" {
		c = " [" + oneLine(s.ID) + "]"
	}
	if t := oneLine(s.Title); t != "" {
		c += " — " + t
	}
	return c
}

// titleList lists the documents consulted, one line per title with all its
// citations: several passages often come from one document.
func titleList(sources []Source) string {
	var titles []string
	cites := map[string]string{}
	for _, s := range sources {
		t := oneLine(s.Title)
		if _, seen := cites[t]; !seen {
			titles = append(titles, t)
			cites[t] = ""
		}
		if s.ID != "" {
			cites[t] += " [" + oneLine(s.ID) + "]"
		}
	}
	lines := make([]string, len(titles))
	for i, t := range titles {
		lines[i] = strings.TrimSpace("- " + t + cites[t])
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ---- Scoring ----

// match is a source worth quoting.
type match struct {
	source Source
	order  int
	// covered is the number of distinct question words the passage holds,
	// best the most any one sentence holds.
	covered, best int
	quote         string
}

// rank returns the best passages for the question's words, best first,
// each with its quote; passages without a matching sentence are left out.
func (p *Provider) rank(sources []Source, question map[string]bool) []match {
	var out []match
	for i, s := range sources {
		if m, ok := p.score(s, question); ok {
			m.order = i
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b match) int {
		return cmp.Or(cmp.Compare(b.covered, a.covered), cmp.Compare(b.best, a.best), cmp.Compare(a.order, b.order))
	})
	return out[:min(len(out), p.maxPassages)]
}

// score scores each sentence of s by the distinct question words it holds
// and quotes the best ones in document order.
func (p *Provider) score(s Source, question map[string]bool) (match, bool) {
	sents := sentences(s.Text)
	type scored struct{ pos, n int }
	var hits []scored
	covered := map[string]bool{}
	for i, sent := range sents {
		n := 0
		for w := range keywords(sent) {
			if question[w] {
				n++
				covered[w] = true
			}
		}
		if n > 0 {
			hits = append(hits, scored{i, n})
		}
	}
	if len(hits) == 0 {
		return match{}, false
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return cmp.Compare(b.n, a.n) })
	// Sentences holding less than half of what the best one holds are
	// noise next to it (the other rows of a table sharing one word).
	keep := 1
	for keep < len(hits) && keep < p.maxSentences && hits[keep].n*2 > hits[0].n {
		keep++
	}
	hits = hits[:keep]
	slices.SortFunc(hits, func(a, b scored) int { return cmp.Compare(a.pos, b.pos) })
	var q strings.Builder
	for i, h := range hits {
		if i > 0 {
			if h.pos == hits[i-1].pos+1 {
				q.WriteString(" ")
			} else {
				q.WriteString(" … ")
			}
		}
		q.WriteString(sents[h.pos])
	}
	best := slices.MaxFunc(hits, func(a, b scored) int { return cmp.Compare(a.n, b.n) }).n
	return match{source: s, covered: len(covered), best: best, quote: q.String()}, true
}

// sentences splits a passage into sentences. Lines are joined back into
// paragraphs first (extracted text often breaks lines mid-sentence), except
// where Markdown starts a new block: a heading, a list item, a quote, a
// table row, a blank line.
func sentences(text string) []string {
	var out []string
	for _, block := range blocks(text) {
		start := 0
		for i := 0; i < len(block); {
			r, size := utf8.DecodeRuneInString(block[i:])
			i += size
			if strings.ContainsRune(".!?…", r) && (i == len(block) || block[i] == ' ') {
				out = appendSentence(out, block[start:i])
				start = i
			}
		}
		out = appendSentence(out, block[start:])
	}
	return out
}

func appendSentence(out []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		return append(out, s)
	}
	return out
}

// blocks joins the lines of text into Markdown blocks, their markers
// taken off and white space collapsed.
func blocks(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = oneLine(line)
		body, marked := unmark(line)
		if line == "" || marked {
			flush()
		}
		if body != "" {
			cur = append(cur, body)
		}
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") {
			flush() // a heading or a table row stands alone
		}
	}
	flush()
	return out
}

// unmark takes the Markdown block marker off a line, and says whether
// there was one.
func unmark(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, "#>|")
	if trimmed != line {
		return strings.TrimSpace(strings.TrimRight(trimmed, "| ")), true
	}
	for _, m := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(line, m); ok {
			return rest, true
		}
	}
	if i := strings.Index(line, ". "); i > 0 && i <= 3 && strings.Trim(line[:i], "0123456789") == "" {
		return line[i+2:], true // "1. item"
	}
	return line, false
}

// keywords returns the distinct words of s that can tell passages apart:
// folded to lower case without accents, stop words and single letters
// left out, a plural s taken off.
func keywords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range foldedWords(s) {
		if stopWords[w] || (len(w) == 1 && !unicode.IsDigit(rune(w[0]))) {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

// foldedWords splits s on anything but letters and digits, lower-cased
// with the accents of Latin letters taken off (also when written as
// combining marks).
func foldedWords(s string) []string {
	var out []string
	var b strings.Builder
	for _, r := range s {
		r = unicode.ToLower(r)
		switch f, ok := folds[r]; {
		case ok:
			b.WriteString(f)
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// folds maps the accented lower-case letters of French and its neighbours
// to plain ones.
var folds = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ä': "a", 'ã': "a", 'å': "a", 'æ': "ae",
	'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'ö': "o", 'õ': "o", 'ø': "o", 'œ': "oe",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ý': "y", 'ÿ': "y", 'ß': "ss",
}

// stopWords are folded French and English words too common to tell
// passages apart.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		le la les un une des du de et ou au aux en dans par pour sur sous avec sans
		ce cet cette ces est sont etre ete que qui quoi quel quelle quels quelles
		ne pas plus se sa son ses leur leurs il elle ils elles on nous vous je tu
		comment pourquoi quand combien ou lequel laquelle faut peut doit fait
		mon ma mes ton ta tes notre votre nos vos y a
		the an and or of to in on at by for with from about into is are was were
		be been being what which who whom whose how why when where does do did
		can could should would will shall may might must this that these those
		it its there their they them his her you your we our me my not no as if`) {
		m[w] = true
	}
	return m
}()
