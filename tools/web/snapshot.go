package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrNoSnapshot is returned by Snapshots.Get for a path it does not hold
// (never stored, or dropped since).
var ErrNoSnapshot = errors.New("no such web snapshot")

// Snapshot is the whole text of a page read, kept so that the model can
// read past the part web_fetch showed.
type Snapshot struct {
	// Path is the snapshot's name, web://HOST/ID.md.
	Path     string
	URL      string // as asked
	FinalURL string // after redirects
	Title    string
	Format   string // "markdown" or "text"
	Text     string
	// Truncated reports that the body was cut at the size cap.
	Truncated bool
	Fetched   time.Time
}

// Snapshots keeps one session's snapshots. read_file reads them by path
// (web://…) with line_offset, SnapshotPageBytes a page.
type Snapshots interface {
	Put(ctx context.Context, s Snapshot) error
	Get(ctx context.Context, path string) (Snapshot, error)
}

// snapshotPath is the snapshot name of the page at u: the same URL always
// gets the same path, so a later call finds it.
func snapshotPath(u string) string {
	sum := sha256.Sum256([]byte(u))
	host := "page"
	if p, err := url.Parse(u); err == nil && p.Hostname() != "" {
		host = strings.ToLower(p.Hostname())
	}
	return "web://" + host + "/" + hex.EncodeToString(sum[:6]) + ".md"
}

// MemorySnapshots keeps snapshots in memory, the oldest dropped past its
// capacity. It is safe for concurrent use.
type MemorySnapshots struct {
	mu    sync.Mutex
	max   int
	byKey map[string]Snapshot
	order []string
}

// DefaultSnapshotCapacity is the number of snapshots a MemorySnapshots
// keeps when given 0.
const DefaultSnapshotCapacity = 64

// NewMemorySnapshots returns a store of at most capacity snapshots (0:
// DefaultSnapshotCapacity).
func NewMemorySnapshots(capacity int) *MemorySnapshots {
	if capacity <= 0 {
		capacity = DefaultSnapshotCapacity
	}
	return &MemorySnapshots{max: capacity, byKey: map[string]Snapshot{}}
}

// Put implements Snapshots.
func (m *MemorySnapshots) Put(_ context.Context, s Snapshot) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byKey[s.Path]; !ok {
		m.order = append(m.order, s.Path)
	}
	m.byKey[s.Path] = s
	for len(m.order) > m.max {
		delete(m.byKey, m.order[0])
		m.order = m.order[1:]
	}
	return nil
}

// Get implements Snapshots.
func (m *MemorySnapshots) Get(_ context.Context, path string) (Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byKey[path]
	if !ok {
		return Snapshot{}, ErrNoSnapshot
	}
	return s, nil
}
