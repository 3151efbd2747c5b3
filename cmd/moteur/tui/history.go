package tui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/redact"
)

// HistoryDir is the directory, under the data directory, that holds the
// prompt histories, one file per project.
const HistoryDir = "chat-history"

// maxHistory bounds the prompts a history keeps and loads.
const maxHistory = 1000

// maxHistoryEntry bounds one stored prompt: a huge paste is sent whole but
// not kept for Up to bring back.
const maxHistoryEntry = 64 << 10

// History is the prompts typed in one project, oldest first, kept in a
// file of JSON lines (mode 0600) so that Up brings them back in the next
// chat. Secrets are masked before a prompt is stored.
type History struct {
	path    string
	entries []string
}

// historyLine is one line of the file.
type historyLine struct {
	Text string `json:"text"`
}

// HistoryPath is the history file of the project at root, under dataDir:
// named by a hash of the root, so that two projects never share one.
func HistoryPath(dataDir, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(dataDir, HistoryDir, hex.EncodeToString(sum[:12])+".jsonl")
}

// OpenHistory reads the history at path; a missing file is an empty
// history. A line that does not decode is skipped: a history is a
// convenience, and a torn last line (a crash mid-write) must not lose the
// others.
func OpenHistory(path string) (*History, error) {
	h := &History{path: path}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("chat history: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4*maxHistoryEntry)
	for sc.Scan() {
		var l historyLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Text != "" {
			h.entries = append(h.entries, l.Text)
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	return h, nil
}

// Entries are the prompts, oldest first.
func (h *History) Entries() []string {
	if h == nil {
		return nil
	}
	return h.entries
}

// Add keeps text, masked, at the end of the history, unless it repeats the
// last entry, and appends it to the file.
func (h *History) Add(text string) error {
	if h == nil || strings.TrimSpace(text) == "" {
		return nil
	}
	if len(text) > maxHistoryEntry {
		text = text[:maxHistoryEntry]
	}
	masked, _ := redact.String(text)
	if n := len(h.entries); n > 0 && h.entries[n-1] == masked {
		return nil
	}
	h.entries = append(h.entries, masked)
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	if h.path == "" {
		return nil
	}
	return h.append(masked)
}

func (h *History) append(text string) error {
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("chat history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("chat history: %w", err)
	}
	b, _ := json.Marshal(historyLine{Text: text})
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("chat history: %w", werr)
	}
	return nil
}
