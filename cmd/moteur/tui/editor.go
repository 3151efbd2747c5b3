package tui

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// Limits of the editor.
const (
	editorRows = 8
	// inlinePaste is the largest paste put in the editor as text; a larger
	// one is kept aside, whole, and the editor shows a placeholder that
	// stands for it until the prompt is sent.
	inlinePaste     = 4 << 10
	inlinePasteRows = 20
	// maxPaste bounds a paste: beyond, the rest is dropped, and a notice
	// says how much.
	maxPaste = 8 << 20
)

func newEditor(placeholder string) textarea.Model {
	ed := textarea.New()
	ed.Prompt = "› "
	ed.Placeholder = placeholder
	ed.ShowLineNumbers = false
	ed.DynamicHeight = true
	ed.MinHeight = 1
	ed.MaxHeight = editorRows
	ed.MaxContentHeight = 10000
	ed.CharLimit = 0
	ed.SetPromptFunc(2, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	km := textarea.DefaultKeyMap()
	km.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	// Ctrl-V would read the clipboard behind the terminal's back; the
	// terminal's own paste arrives as a bracketed paste.
	km.Paste = key.NewBinding(key.WithDisabled())
	ed.KeyMap = km
	st := ed.Styles()
	st.Focused.CursorLine = st.Focused.Base
	ed.SetStyles(st)
	return ed
}

// paste puts a bracketed paste in the editor: control characters removed
// (newlines and tabs kept), binary data refused, a very large paste cut at
// maxPaste, and a large one kept aside behind a placeholder. Each change
// is said in the status line.
func (m *Model) paste(s string) tea.Cmd {
	if looksBinary(s) {
		m.notice = fmt.Sprintf(m.tx.pasteBinary, len(s))
		return nil
	}
	var notes []string
	if len(s) > maxPaste {
		cut := maxPaste
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		notes = append(notes, fmt.Sprintf(m.tx.pasteCut, cut, len(s)-cut))
		s = s[:cut]
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	clean, dropped := cleanPaste(s)
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf(m.tx.pasteCleaned, dropped))
	}
	if lines := strings.Count(strings.TrimSuffix(clean, "\n"), "\n") + 1; len(clean) > inlinePaste || lines > inlinePasteRows {
		tag := fmt.Sprintf("[paste #%d: %d bytes, %d lines]", len(m.pastes)+1, len(clean), lines)
		m.pastes[tag] = clean
		clean = tag
		notes = append(notes, fmt.Sprintf(m.tx.pasteLarge, len(m.pastes[tag]), lines))
	}
	m.editor.InsertString(clean)
	m.notice = strings.Join(notes, " · ")
	m.layout()
	return nil
}

// expandPastes replaces the placeholders of the prompt by the pastes they
// stand for.
func (m *Model) expandPastes(s string) string {
	for tag, text := range m.pastes {
		s = strings.Replace(s, tag, text, 1)
	}
	return s
}

// looksBinary: a NUL byte, or more than one byte in a hundred that is not
// UTF-8.
func looksBinary(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return true
	}
	if utf8.ValidString(s) {
		return false
	}
	bad := 0
	b := []byte(s)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		b = b[n:]
	}
	return bad*100 > len(s)
}

// cleanPaste drops control characters but newlines and tabs (tabs become
// four spaces, which the editor shows) and bytes that are not UTF-8; it
// returns how many it dropped.
func cleanPaste(s string) (string, int) {
	var buf bytes.Buffer
	buf.Grow(len(s))
	dropped := 0
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			dropped++
		case r == '\t':
			buf.WriteString("    ")
		case r == '\n' || !unicode.IsControl(r):
			buf.WriteRune(r)
		default:
			dropped++
		}
	}
	return buf.String(), dropped
}
