package i18n

import (
	"strings"
	"testing"
)

// The knowledge section asks for citations by passage id, unless the agent
// does not cite; both say how to search and read.
func TestKnowledgePromptCitations(t *testing.T) {
	for _, l := range []Lang{FR, EN} {
		with, without := KnowledgePrompt(l, "rh, juridique", true), KnowledgePrompt(l, "rh, juridique", false)
		if !strings.Contains(with, "[c3]") {
			t.Errorf("%s: the knowledge section asks for no citation: %s", l, with)
		}
		if strings.Contains(without, "[c3]") || strings.Contains(without, "cite") {
			t.Errorf("%s: citation rule left: %s", l, without)
		}
		for _, s := range []string{with, without} {
			if !strings.Contains(s, "rh, juridique") || !strings.Contains(s, "search_knowledge") || !strings.Contains(s, "read_document") {
				t.Errorf("%s: the section lost its bases or tools: %s", l, s)
			}
		}
	}
}

// The quick answer's prompt asks for source ids unless the agent does not
// cite; the rest of it stays.
func TestQuickAnswerPromptCitations(t *testing.T) {
	for _, l := range []Lang{FR, EN} {
		with, without := QuickAnswerPrompt(l, true), QuickAnswerPrompt(l, false)
		if !strings.Contains(with, "[c2]") {
			t.Errorf("%s: no citation rule: %s", l, with)
		}
		if strings.Contains(without, "[c") || len(without) >= len(with) || !strings.Contains(without, "<sources>") {
			t.Errorf("%s: without citations: %s", l, without)
		}
	}
}
