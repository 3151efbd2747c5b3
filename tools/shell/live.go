package shell

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/moteur/moteur/tools"
)

// liveEvery is the least time between two lines of output reported while a
// command runs: a build that prints thousands of lines a second shows its
// latest one ten times a second, not every one (the result keeps them).
const liveEvery = 100 * time.Millisecond

// maxLiveLine bounds a reported line: it is a glimpse, not the output.
const maxLiveLine = 200

// liveLines reports the command's output as it comes, one complete line at
// a time (tools.ReportProgress: the engine turns it into ToolProgress
// events, masked, that a terminal shows under the running call). Both
// streams share one; Write never fails.
type liveLines struct {
	ctx  context.Context
	now  func() time.Time
	mu   sync.Mutex
	last time.Time // of the last report
}

func newLiveLines(ctx context.Context) *liveLines {
	return &liveLines{ctx: ctx, now: time.Now}
}

// stream is a writer for one of the command's streams: a line cut in the
// middle by the other stream's write is reported whole, as each stream's
// own.
func (l *liveLines) stream() *liveStream { return &liveStream{l: l} }

type liveStream struct {
	l    *liveLines
	part []byte
}

func (s *liveStream) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.part = appendBounded(s.part, p)
			break
		}
		s.part = appendBounded(s.part, p[:i])
		s.l.report(s.part)
		s.part = s.part[:0]
		p = p[i+1:]
	}
	return n, nil
}

func appendBounded(b, p []byte) []byte {
	if room := maxLiveLine - len(b); room > 0 {
		b = append(b, p[:min(room, len(p))]...)
	}
	return b
}

func (l *liveLines) report(line []byte) {
	line = bytes.TrimRight(line, "\r \t")
	if len(line) == 0 {
		return
	}
	l.mu.Lock()
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < liveEvery {
		l.mu.Unlock()
		return
	}
	l.last = now
	l.mu.Unlock()
	tools.ReportProgress(l.ctx, tools.Progress{Message: string(bytes.ToValidUTF8(line, []byte("?")))})
}
