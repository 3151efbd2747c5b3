package openai

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// splitThink runs pieces through a splitter and returns all text and all
// reasoning, flush included.
func splitThink(pieces ...string) (text, reasoning string) {
	var t thinkSplitter
	var tb, rb strings.Builder
	for _, p := range pieces {
		tx, r := t.write(p)
		tb.WriteString(tx)
		rb.WriteString(r)
	}
	tx, r := t.flush()
	return tb.String() + tx, rb.String() + r
}

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name            string
		pieces          []string
		text, reasoning string
	}{
		{"no block", []string{"Hello", " world"}, "Hello world", ""},
		{"block at start", []string{"<think>plan</think>\n\nAnswer"}, "Answer", "plan"},
		{"leading whitespace before block", []string{"\n <think>plan</think>Answer"}, "Answer", "plan"},
		{"open tag split", []string{"<thi", "nk>plan</think>Answer"}, "Answer", "plan"},
		{"open tag split in three", []string{"<", "th", "ink>pl", "an</th", "ink>", "\n\n", "Answer"}, "Answer", "plan"},
		{"close tag split byte by byte", []string{"<think>x<", "/", "t", "h", "i", "n", "k", ">y"}, "y", "x"},
		{"unclosed block stays reasoning", []string{"<think>still thin", "king</thi"}, "", "still thinking</thi"},
		{"block in the middle", []string{"A <think>x</think> B"}, "A  B", "x"},
		{"lone angle bracket", []string{"a <", " b"}, "a < b", ""},
		{"partial tag at end is text", []string{"a <thi"}, "a <thi", ""},
		{"not a tag", []string{"<thinking>x"}, "<thinking>x", ""},
		{"whitespace-only content is no answer", []string{"\n\n", "  "}, "", ""},
		{"whitespace after text is kept", []string{"a", "\n\n", "b"}, "a\n\nb", ""},
		{"two blocks", []string{"<think>a</think><think>b</think>c"}, "c", "ab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, reasoning := splitThink(tc.pieces...)
			if text != tc.text || reasoning != tc.reasoning {
				t.Errorf("got text %q reasoning %q, want %q %q", text, reasoning, tc.text, tc.reasoning)
			}
		})
	}
}

// TestThinkSplitterHoldsOnlyTags checks that text goes out as soon as it
// cannot be part of a tag: the stream must stay live.
func TestThinkSplitterHoldsOnlyTags(t *testing.T) {
	var s thinkSplitter
	if text, _ := s.write("Hello <"); text != "Hello " {
		t.Fatalf("got %q, want the text before the possible tag", text)
	}
	if text, _ := s.write("b"); text != "<b" {
		t.Fatalf("got %q, want the held '<' released", text)
	}
	s = thinkSplitter{}
	s.write("<think>")
	if _, r := s.write("abc</"); r != "abc" {
		t.Fatalf("got reasoning %q, want abc at once", r)
	}
}

// FuzzThink checks that where the content is cut into chunks does not change
// what the splitter makes of it.
func FuzzThink(f *testing.F) {
	f.Add("<think>plan</think>\n\nAnswer", uint8(3))
	f.Add("  <think>a<b</think> c <think>d", uint8(1))
	f.Add("x </think> <thin", uint8(5))
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		if !utf8.ValidString(s) {
			t.Skip("content is valid UTF-8 once decoded from JSON")
		}
		n := int(step%16) + 1
		var pieces []string
		for rest := s; rest != ""; {
			k := min(n, len(rest))
			for k < len(rest) && !utf8.RuneStart(rest[k]) {
				k++
			}
			pieces = append(pieces, rest[:k])
			rest = rest[k:]
		}
		wt, wr := splitThink(s)
		pt, pr := splitThink(pieces...)
		if wt != pt || wr != pr {
			t.Fatalf("whole: %q %q; in pieces of %d: %q %q", wt, wr, n, pt, pr)
		}
	})
}
