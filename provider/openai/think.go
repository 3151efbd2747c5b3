package openai

import (
	"strings"
	"unicode"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter separates <think>…</think> blocks from the answer in a
// streamed content field. Reasoning models served without a reasoning parser
// (DeepSeek-R1 and Qwen3 on vLLM, llama.cpp or Ollama, depending on their
// settings) put their thinking inside the content this way.
//
// Tags may be split across chunks ("<thi", "nk>"), so the splitter holds back
// only a tail that could still become a tag; everything else goes out at
// once, which keeps the stream live. Whitespace before the first visible
// character of the answer is dropped: models put "\n\n" after </think> or
// before tool calls, and an answer made only of it is no answer.
type thinkSplitter struct {
	inThink bool
	held    string // a tail that may be the start of a tag
	sawText bool   // some answer text went out
}

// write splits one piece of content into answer text and reasoning.
func (t *thinkSplitter) write(s string) (text, reasoning string) {
	if t.held == "" && strings.IndexByte(s, '<') < 0 {
		// No tag can start here: the usual chunk goes through untouched.
		if t.inThink {
			return "", s
		}
		if t.sawText {
			return s, ""
		}
	}
	buf := t.held + s
	t.held = ""
	var tb, rb strings.Builder
	for buf != "" {
		if t.inThink {
			buf = t.thinking(buf, &rb)
		} else {
			buf = t.answering(buf, &tb)
		}
	}
	return tb.String(), rb.String()
}

// thinking consumes buf inside a block and returns what follows its end.
func (t *thinkSplitter) thinking(buf string, rb *strings.Builder) string {
	if i := strings.Index(buf, thinkClose); i >= 0 {
		rb.WriteString(buf[:i])
		t.inThink = false
		return buf[i+len(thinkClose):]
	}
	keep := partialTagLen(buf, thinkClose)
	rb.WriteString(buf[:len(buf)-keep])
	t.held = buf[len(buf)-keep:]
	return ""
}

// answering consumes buf outside a block and returns what follows the next
// opening tag.
func (t *thinkSplitter) answering(buf string, tb *strings.Builder) string {
	if !t.sawText {
		buf = strings.TrimLeftFunc(buf, unicode.IsSpace)
	}
	out := buf
	rest := ""
	if i := strings.Index(buf, thinkOpen); i >= 0 {
		out, rest = buf[:i], buf[i+len(thinkOpen):]
		t.inThink = true
	} else {
		keep := partialTagLen(buf, thinkOpen)
		out, t.held = buf[:len(buf)-keep], buf[len(buf)-keep:]
	}
	if out != "" {
		t.sawText = true
		tb.WriteString(out)
	}
	return rest
}

// flush ends the content: a held tail is what it looked like, and an
// unclosed block stays reasoning (the model ran out of tokens thinking).
func (t *thinkSplitter) flush() (text, reasoning string) {
	held := t.held
	t.held = ""
	if t.inThink {
		return "", held
	}
	if held != "" {
		t.sawText = true
	}
	return held, ""
}

// partialTagLen is the length of the longest proper prefix of tag that s
// ends with.
func partialTagLen(s, tag string) int {
	n := min(len(s), len(tag)-1)
	for ; n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
