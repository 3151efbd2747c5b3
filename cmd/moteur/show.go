package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// Limits of a tool result in sessions show.
const (
	resultLines     = 3
	resultLineRunes = 100
)

// conversation writes a stored session as a readable conversation: the
// user's messages, the answers, the tool calls and their results, the end
// of each turn, and one line for each other event that matters to a reader.
type conversation struct {
	w   *bufio.Writer
	tty bool
	l   i18n.Lang // the language of what moteur writes around the events
	// pending are the tool calls without a result yet, in call order.
	pending []pendingCall
}

type pendingCall struct{ id, name, indent string }

// writeConversation writes the header of info and its events, in
// language l.
func writeConversation(out io.Writer, tty bool, l i18n.Lang, info session.Info, events []event.Event) error {
	c := &conversation{w: bufio.NewWriter(out), tty: tty, l: l}
	c.header(info)
	for _, e := range events {
		c.event(e)
	}
	c.unanswered(i18n.Tr(c.l, "no result recorded: the call is still running, or its process stopped before it finished"))
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf(i18n.Tr(c.l, "write output: %w"), err)
	}
	return nil
}

func (c *conversation) header(i session.Info) {
	title := i.Title
	if title == "" {
		title = i18n.Tr(c.l, "(no message)")
	}
	c.line("", i18n.Trf(c.l, "session %s · %s", i.ID, oneLine(title, 80)))
	var facts []string
	if i.ProjectRoot != "" {
		facts = append(facts, i18n.Trf(c.l, "project %s", i.ProjectRoot))
	}
	facts = append(facts, plural(i.Events, i18n.Tr(c.l, "1 event"), i18n.Tr(c.l, "%d events")),
		i18n.Trf(c.l, "created %s", i.Created.Local().Format(time.RFC3339)), i18n.Trf(c.l, "updated %s", i.Updated.Local().Format(time.RFC3339)))
	c.line("  ", strings.Join(facts, " · "))
	if i.ParentID != "" {
		c.line("  ", i18n.Trf(c.l, "forked from %s at seq %d", i.ParentID, i.ForkSeq))
	}
	c.line("", "")
}

func (c *conversation) event(e event.Event) {
	// A sub-agent's events are shown indented under the call that started
	// it.
	indent := ""
	if e.ParentCallID != "" {
		indent = "    "
	}
	switch p := e.Payload.(type) {
	case event.SessionStartedPayload:
		c.line(indent, i18n.Trf(c.l, "· started: model %s (%s), tools %s", p.Model, p.Provider, strings.Join(p.Tools, ", ")))
	case event.UserMessagePayload:
		c.unanswered(i18n.Tr(c.l, "no result recorded: the process stopped before the call finished"))
		text := p.Text
		if p.Blocked {
			text += i18n.Tr(c.l, "  [blocked by a hook, not sent]")
		}
		c.block(indent, "› ", text)
	case event.AssistantMessagePayload:
		c.unanswered(i18n.Tr(c.l, "no result recorded: the process stopped before the call finished"))
		if t := strings.TrimSpace(p.Text); t != "" {
			if p.Synthetic {
				t += i18n.Tr(c.l, "  [written by moteur]")
			}
			if p.Truncated {
				t += i18n.Tr(c.l, "  [truncated]")
			}
			c.block(indent, "", t)
		}
		for _, call := range p.ToolCalls {
			c.line(indent, "→ "+oneLine(call.Name, 60)+" "+oneLine(call.Arguments, argsPreview))
			c.pending = append(c.pending, pendingCall{id: call.ID, name: call.Name, indent: indent})
		}
	case event.ToolResultPayload:
		c.result(indent, p)
	case event.TurnCompletedPayload:
		c.unanswered(i18n.Tr(c.l, "no result recorded: the process stopped before the call finished"))
		c.line(indent, i18n.Trf(c.l, "· turn ended: %s (%s, %s)", p.Reason,
			plural(p.Rounds, i18n.Tr(c.l, "1 round"), i18n.Tr(c.l, "%d rounds")), plural(p.Requests, i18n.Tr(c.l, "1 request"), i18n.Tr(c.l, "%d requests"))))
	case event.ErrorPayload:
		c.line(indent, i18n.Trf(c.l, "✗ error (%s): %s", p.Kind, oneLine(p.Message, 300)))
	case event.ProviderRetryPayload:
		c.line(indent, i18n.Trf(c.l, "· retry %d: %s", p.Attempt, oneLine(p.Error, 200)))
	case event.PermissionRequestedPayload:
		c.line(indent, i18n.Trf(c.l, "? permission asked for %s (%s): %s", p.Tool, p.Risk, oneLine(p.Summary, argsPreview)))
	case event.ContextCompactedPayload:
		c.line(indent, i18n.Trf(c.l, "· context compacted: %d messages summarised (%d → %d tokens)", p.Replaced, p.TokensBefore, p.TokensAfter))
	case event.SessionClassifiedPayload:
		c.line(indent, i18n.Trf(c.l, "· session classified: %s (%s)", p.Marking, p.Source))
	case event.ProviderSelectedPayload:
		c.line(indent, i18n.Trf(c.l, "· provider: %s, model %s (%s)", p.Provider, p.Model, p.Reason))
	case event.McpServerDownPayload:
		c.line(indent, i18n.Trf(c.l, "· MCP server %s down: %s", p.Name, oneLine(p.Error, 200)))
	case event.HookCompletedPayload:
		s := i18n.Trf(c.l, "· hook %s (%s): exit %d", p.Hook, p.Event, p.ExitCode)
		if p.Blocked {
			s += i18n.Tr(c.l, ", blocked")
		}
		c.line(indent, s)
	case event.RewoundPayload:
		c.rewound(indent, p)
	case event.HookStartedPayload, event.DeltaPayload:
		// The hook's outcome says it all; deltas are never stored.
	default:
		if _, known := event.SpecOf(e.Type); !known {
			c.line(indent, i18n.Trf(c.l, "· %s (seq %d): an event type this version does not know, kept as stored", e.Type, e.Seq))
		}
	}
}

func (c *conversation) result(indent string, p event.ToolResultPayload) {
	for i, pc := range c.pending {
		if pc.id == p.CallID {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	mark, what := "✓", fmt.Sprintf("%s (%d ms)", oneLine(p.Name, 60), p.DurationMS)
	if p.IsError {
		mark = "✗"
	}
	if p.Synthetic {
		what = oneLine(p.Name, 60) + i18n.Tr(c.l, " [synthetic: moteur answered, the call never finished]")
	}
	if p.Truncated {
		what += i18n.Tr(c.l, " [truncated]")
	}
	c.line(indent, mark+" "+what)
	lines := strings.Split(strings.TrimSpace(p.Content), "\n")
	for i, l := range lines {
		if i == resultLines {
			c.line(indent, "  … "+plural(len(lines)-i, i18n.Tr(c.l, "1 more line"), i18n.Tr(c.l, "%d more lines")))
			break
		}
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			c.line(indent, "  "+oneLine(l, resultLineRunes))
		}
	}
}

// rewound shows a rewind: the point, the mode and each file's outcome,
// then what the conversation became.
func (c *conversation) rewound(indent string, p event.RewoundPayload) {
	c.unanswered(i18n.Tr(c.l, "no result recorded: the process stopped before the call finished"))
	s := i18n.Trf(c.l, "⟲ rewound to %d (%s)", p.ToSeq, p.Mode)
	if len(p.Files) > 0 {
		files := make([]string, 0, len(p.Files))
		for _, f := range p.Files {
			files = append(files, oneLine(f.Path, 80)+" "+f.Status)
		}
		s += i18n.Trf(c.l, ": %s", strings.Join(files, ", "))
	} else if p.Mode != "conversation" {
		s += i18n.Tr(c.l, ": no file to put back")
	}
	c.line(indent, s)
	for _, f := range p.Files {
		if f.Error != "" {
			c.line(indent, i18n.Trf(c.l, "  ✗ %s: %s", oneLine(f.Path, 80), oneLine(f.Error, resultLineRunes)))
		}
	}
	if p.Prompt != "" {
		c.line(indent, i18n.Trf(c.l, "  the conversation is back before: %s", oneLine(p.Prompt, resultLineRunes)))
	}
}

// unanswered notes the calls still pending as having no result, with why.
func (c *conversation) unanswered(why string) {
	for _, pc := range c.pending {
		c.line(pc.indent, i18n.Trf(c.l, "! %s: %s", oneLine(pc.name, 60), why))
	}
	c.pending = c.pending[:0]
}

// block writes text, its first line after prefix and the others indented
// to match.
func (c *conversation) block(indent, prefix, text string) {
	pad := strings.Repeat(" ", len([]rune(prefix)))
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if i == 0 {
			c.line(indent, prefix+l)
		} else {
			c.line(indent, pad+l)
		}
	}
}

func (c *conversation) line(indent, s string) {
	if c.tty {
		s = cleanTerminal(s)
	}
	c.w.WriteString(indent + strings.TrimRight(s, " ") + "\n")
}

// plural is one when n is 1, else the format many (a %d) with n: the
// caller translates both, as each language makes its own plural.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}
