package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/moteur/moteur/llm"
)

// The transcript is a list of blocks, each rendered to lines for a width
// and cached: a frame re-renders only what changed (the block streaming,
// a running call's clock), so that a long answer streams at full speed.

type blockKind int

const (
	blockUser blockKind = iota
	blockAnswer
	blockReasoning
	blockTool
	blockNote
	blockError
)

// Preview bounds of a tool call on screen.
const (
	argsShort     = 80
	outputPreview = 3
	maxErrorLines = 200
)

type block struct {
	kind blockKind
	text string // user, note, error, a finished answer; reasoning: its text

	// An answer being streamed: its text so far, and the wrapped lines of
	// its complete lines (up to wrappedTo), kept between frames.
	stream    strings.Builder
	streaming bool
	wrapped   []string
	wrappedTo int
	round     int

	// A tool call.
	call     llm.ToolCall
	started  time.Time
	done     bool
	duration time.Duration
	isError  bool
	output   string
	progress string

	// cache: lines for cacheWidth; valid while !dirty.
	cacheWidth int
	cache      []string
	dirty      bool
}

var (
	styleFaint = lipgloss.NewStyle().Faint(true)
	styleUser  = lipgloss.NewStyle().Bold(true)
	styleError = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleOK    = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleTool  = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleAdd   = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleDel   = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleHunk  = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
)

// lines renders b for width, through its cache; now is the clock of a
// running call.
func (b *block) lines(width int, md *markdown, now time.Time, tx *texts) []string {
	if b.kind == blockAnswer && b.streaming {
		return b.streamLines(width)
	}
	if b.kind == blockTool && !b.done {
		return b.toolLines(width, now, tx)
	}
	if b.dirty || b.cacheWidth != width || b.cache == nil {
		b.cache = b.render(width, md, now, tx)
		b.cacheWidth, b.dirty = width, false
	}
	return b.cache
}

func (b *block) render(width int, md *markdown, now time.Time, tx *texts) []string {
	switch b.kind {
	case blockUser:
		ls := wrap(b.text, width-2)
		for i, l := range ls {
			p := "  "
			if i == 0 {
				p = "› "
			}
			ls[i] = styleUser.Render(p + l)
		}
		return append([]string{""}, ls...)
	case blockAnswer:
		return md.render(b.text, width)
	case blockReasoning:
		return []string{styleFaint.Render(ansi.Truncate(fmt.Sprintf(tx.thinking, utf8.RuneCountInString(b.text)), width, "…"))}
	case blockTool:
		return b.toolLines(width, now, tx)
	case blockError:
		return styleLines(wrap(b.text, width), styleError)
	}
	return styleLines(wrap(b.text, width), styleFaint)
}

// streamLines wraps the streamed text, reusing the lines of what was
// complete at the last frame: only the new lines are wrapped.
func (b *block) streamLines(width int) []string {
	if b.cacheWidth != width {
		b.wrapped, b.wrappedTo, b.cacheWidth = nil, 0, width
	}
	s := b.stream.String()
	if i := strings.LastIndexByte(s, '\n'); i+1 > b.wrappedTo {
		b.wrapped = append(b.wrapped, wrap(s[b.wrappedTo:i], width)...)
		b.wrappedTo = i + 1
	}
	tail := s[b.wrappedTo:]
	if tail == "" {
		return b.wrapped
	}
	// The slice is not kept: the tail's lines change with the next delta.
	return append(b.wrapped[:len(b.wrapped):len(b.wrapped)], wrap(tail, width)...)
}

func (b *block) toolLines(width int, now time.Time, tx *texts) []string {
	head := OneLine(b.call.Name, 40) + " " + OneLine(b.call.Arguments, argsShort)
	var mark string
	switch {
	case !b.done:
		mark = styleTool.Render("⋯") + " " + head + styleFaint.Render(" ("+seconds(now.Sub(b.started))+")")
	case b.isError:
		mark = styleError.Render("✗") + " " + head + styleFaint.Render(" ("+millis(b.duration)+")")
	default:
		mark = styleOK.Render("✓") + " " + head + styleFaint.Render(" ("+millis(b.duration)+")")
	}
	out := []string{ansi.Truncate(mark, width, "…")}
	switch {
	case !b.done && b.progress != "":
		out = append(out, styleFaint.Render(ansi.Truncate("  "+b.progress, width, "…")))
	case b.isError:
		ls := wrap(strings.TrimRight(b.output, "\n"), width-2)
		if len(ls) > maxErrorLines {
			ls = append(ls[:maxErrorLines], fmt.Sprintf(tx.moreLines, len(ls)-maxErrorLines))
		}
		for _, l := range ls {
			out = append(out, styleError.Render("  "+l))
		}
	case b.done:
		ls := strings.Split(strings.TrimRight(cleanText(b.output), "\n"), "\n")
		n := len(ls)
		if n == 1 && ls[0] == "" {
			break
		}
		if n > outputPreview {
			ls = append(ls[:outputPreview], fmt.Sprintf(tx.lines, n))
		}
		for _, l := range ls {
			out = append(out, styleFaint.Render(ansi.Truncate("  "+l, width, "…")))
		}
	}
	return out
}

func styleLines(ls []string, st lipgloss.Style) []string {
	for i, l := range ls {
		ls[i] = st.Render(l)
	}
	return ls
}

// wrap cuts s into lines of at most width cells, at spaces when it can.
func wrap(s string, width int) []string {
	width = max(width, 1)
	s = cleanText(s)
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// cleanText drops the control characters of s but newlines (tabs become
// spaces): a model that read a hostile file could otherwise send escape
// sequences that retitle the window or hide text.
func cleanText(s string) string {
	clean := true
	for _, c := range s {
		if c != '\n' && unicode.IsControl(c) || c == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(c rune) rune {
		switch {
		case c == '\t':
			return ' '
		case c == '\n':
			return c
		case unicode.IsControl(c):
			return -1
		}
		return c
	}, s)
}

// OneLine squeezes s onto one line of at most n runes: line breaks and
// control characters become single spaces, and a longer text ends in "…".
// The line mode of moteur chat and run summarises with it too.
func OneLine(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(c rune) bool {
		return unicode.IsSpace(c) || unicode.IsControl(c)
	}), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", max(d, 0).Seconds())
}

func millis(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return seconds(d)
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
