package compaction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/moteur/moteur/llm"
)

// Summarizer asks the model for a summary. The engine passes a closure that
// streams a request with these messages to the session's provider, with
// tool_choice none, and returns the text of the answer.
type Summarizer func(ctx context.Context, prompt []llm.Message) (string, error)

// summaryAttempts is how many times one summary is asked for: one retry
// covers a dropped stream, more would delay the turn for a provider that is
// down, where the degraded archive serves better.
const summaryAttempts = 2

// Markers of the injected summary message. The opening line is what
// recognises a summary message in a history, so it must stay stable across
// versions: sessions recorded with it are restored with it.
const (
	summaryOpen  = "<context-summary>\nThe conversation before this point was compacted into the following summary.\n\n"
	summaryClose = "\n</context-summary>"
)

// SummaryMessage wraps a summary as the marked user message injected between
// the system prompt and the kept tail. The engine and Restore must both build
// it with this function so that a restored history equals the live one.
func SummaryMessage(summary string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: summaryOpen + summary + summaryClose}
}

// ParseSummaryMessage returns the summary a SummaryMessage wraps, and whether
// m is one.
func ParseSummaryMessage(m llm.Message) (string, bool) {
	if m.Role != llm.RoleUser || !strings.HasPrefix(m.Content, summaryOpen) || !strings.HasSuffix(m.Content, summaryClose) {
		return "", false
	}
	return m.Content[len(summaryOpen) : len(m.Content)-len(summaryClose)], true
}

const summarySystem = `You summarise a conversation between a user and a coding agent so that the agent can continue the work from the summary alone. Do not continue the conversation and do not answer questions in it: only write the summary. Be factual and specific: keep exact names, paths, commands, error messages, numbers and decisions.`

const summaryFormat = `Write the summary in this structure, in Markdown, omitting empty sections:

## Goal
What the user wants to achieve.
## Constraints & Preferences
Requirements and preferences the user stated.
## Progress
### Done
### In Progress
### Blocked
## Key Decisions
Decisions taken and why.
## Next Steps
## Critical Context
Anything else needed to continue (values, identifiers, unresolved errors).

Do not list files: a files section is added automatically.`

const turnPrefixFormat = `The messages below are the beginning of the current turn, which was too long to keep whole; its end is kept verbatim after the summary. Summarise this beginning so that the end makes sense: the user's request for this turn, what was done so far, and the intermediate results the rest depends on. Use the sections "## Turn Request", "## Steps So Far" and "## Intermediate Results". Do not list files: a files section is added automatically.`

// promptInput is what one summary request is built from.
type promptInput struct {
	previous   string   // the previous summary, files section stripped, or ""
	transcript string   // the rendered messages to summarise
	files      fileOps  // paths read and modified, previous ones merged
	turnPrefix bool     // summarise the beginning of a split turn
	budget     int      // tokens the summary should fit in
	notes      []string // what was left out of the transcript
}

func buildPrompt(in promptInput) []llm.Message {
	var b strings.Builder
	if in.previous != "" {
		b.WriteString("<previous-summary>\n" + in.previous + "\n</previous-summary>\n\n")
		b.WriteString("The previous summary above covers the conversation before the messages below. Merge it into the new summary: keep what still holds, update what changed.\n\n")
	}
	b.WriteString("<conversation>\n" + in.transcript + "\n</conversation>\n\n")
	for _, n := range in.notes {
		b.WriteString("Note: " + n + "\n")
	}
	if s := in.files.section(); s != "" {
		b.WriteString("Files touched so far:\n" + s + "\n\n")
	}
	if in.turnPrefix {
		b.WriteString(turnPrefixFormat)
	} else {
		b.WriteString(summaryFormat)
	}
	fmt.Fprintf(&b, "\n\nKeep the summary under about %d tokens.", in.budget)
	return []llm.Message{
		{Role: llm.RoleSystem, Content: summarySystem},
		{Role: llm.RoleUser, Content: b.String()},
	}
}

// render writes msgs as a plain transcript, each tool result cut to
// resultCap tokens so that one huge output cannot crowd out the rest. It
// reports how many results were cut.
func (c *Compactor) render(msgs []llm.Message, resultCap int) (string, int) {
	var b strings.Builder
	cut := 0
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleTool:
			text, ok := c.est.truncateText(m.Content, resultCap)
			if ok {
				cut++
			}
			fmt.Fprintf(&b, "[tool result %s]\n%s\n\n", m.Name, text)
		default:
			fmt.Fprintf(&b, "[%s]\n", m.Role)
			if m.Content != "" {
				b.WriteString(m.Content + "\n")
			}
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "→ call %s(%s)\n", tc.Name, tc.Arguments)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimSpace(b.String()), cut
}

// ask requests one summary, with one retry. A cancelled context is not
// retried: the turn is over and its error is what the caller must see.
func ask(ctx context.Context, summarize Summarizer, prompt []llm.Message) (string, error) {
	var errs []error
	for attempt := 1; attempt <= summaryAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("summary cancelled: %w", err)
		}
		text, err := summarize(ctx, prompt)
		if err == nil && strings.TrimSpace(text) != "" {
			return strings.TrimSpace(text), nil
		}
		if err == nil {
			err = errors.New("empty summary")
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("summary cancelled: %w", errors.Join(ctx.Err(), err))
		}
		errs = append(errs, fmt.Errorf("attempt %d: %w", attempt, err))
	}
	return "", fmt.Errorf("summary failed: %w", errors.Join(errs...))
}

// fit renders msgs newest first within budget tokens, dropping whole
// messages from the oldest side; only the newest is cut when it alone is too
// big. It returns the transcript and how many of the oldest messages it left
// out.
func (c *Compactor) fit(msgs []llm.Message, budget, resultCap int) (string, int) {
	var kept []string
	omitted := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		text, _ := c.render(msgs[i:i+1], resultCap)
		n := c.est.Text(text) + 2
		if n > budget {
			if len(kept) == 0 {
				text, _ = c.est.truncateText(text, max(budget, 16))
				kept = append(kept, text)
				omitted = i
			} else {
				omitted = i + 1
			}
			break
		}
		kept = append(kept, text)
		budget -= n
	}
	var b strings.Builder
	for i := len(kept) - 1; i >= 0; i-- {
		b.WriteString(kept[i])
		if i > 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String(), omitted
}

// degraded builds the archive used when the model cannot summarise: the
// original messages themselves, newest kept first within the budget the
// summary had, the previous summary ahead of them (it stands for everything
// older), and a note of what was omitted so that the model knows the record
// is partial.
func (c *Compactor) degraded(previous string, msgs []llm.Message, budget, resultCap int, cause error) string {
	if previous != "" {
		previous, _ = c.est.truncateText(previous, budget/2)
		budget -= c.est.Text(previous)
	}
	// The per-result cap is lowered to the budget: the archive is small.
	text, omitted := c.fit(msgs, budget, min(resultCap, max(budget/4, 64)))
	reason := cause.Error()
	if len(reason) > 200 {
		reason = reason[:runeStart(reason, 200)] + "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[Degraded archive: the summary could not be produced (%s). ", reason)
	if omitted > 0 {
		fmt.Fprintf(&b, "The %d oldest of the %d compacted messages are omitted; the others are kept verbatim, long outputs shortened.]\n\n", omitted, len(msgs))
	} else {
		fmt.Fprintf(&b, "The %d compacted messages are kept verbatim, long outputs shortened.]\n\n", len(msgs))
	}
	if previous != "" {
		b.WriteString("Earlier summary:\n" + previous + "\n\n")
	}
	b.WriteString(text)
	return strings.TrimSpace(b.String())
}
