package rag

import (
	"context"
	"strings"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
)

// maxRewrite bounds the rewritten question (in bytes): a model that
// rambles is ignored rather than searched for.
const maxRewrite = 500

// rewrite turns the question into one that stands alone when there is a
// conversation and a model may read it; otherwise, or on any failure, the
// question is searched as asked (a failed rewrite is a warning, not an
// error: retrieval still works).
func (p *Pipeline) rewrite(ctx context.Context, question string, history []llm.Message, rec *recorder) string {
	convo := textOnly(history)
	if p.cfg.Router == nil || len(convo) == 0 {
		return question
	}
	msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: i18n.RewritePrompt(p.cfg.Lang)}}, convo...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: question})
	req := llm.Request{Messages: msgs, MaxTokens: 200, NoThinking: true}
	for _, c := range p.cfg.Router.Candidates(false) {
		if p.check(c, msgs) != nil {
			continue
		}
		resp, err := c.Provider.Stream(ctx, req, func(llm.Delta) {})
		if err != nil {
			rec.event(event.Warning, event.WarningPayload{Kind: "rewrite", Message: "question not rewritten: " + err.Error()}, false)
			return question
		}
		q := strings.TrimSpace(resp.Text)
		if q == "" || len(q) > maxRewrite {
			return question
		}
		return q
	}
	return question
}
