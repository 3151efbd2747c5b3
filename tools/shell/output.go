package shell

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/moteur/moteur/tools"
)

// capture keeps a bounded view of a stream: its first and last bytes, half
// of the limit each, and the count of what fell in between. A build or a
// test run says what it does at the start and what went wrong at the end.
// Write never fails and never grows beyond the limit, so the stream can be
// drained for as long as the command prints.
type capture struct {
	mu    sync.Mutex
	limit int
	head  []byte // the first limit-limit/2 bytes
	tail  []byte // ring of the last limit/2 bytes once head is full
	pos   int    // next write position in tail when full
	full  bool   // tail has wrapped
	total int64  // bytes written
}

func newCapture(limit int) *capture {
	return &capture{limit: limit}
}

// Write implements io.Writer.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	headCap := c.limit - c.limit/2
	if room := headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailCap := c.limit / 2
	if len(p) == 0 || tailCap == 0 {
		return n, nil
	}
	if len(p) >= tailCap {
		// Only the last tailCap bytes can survive.
		c.tail = append(c.tail[:0], p[len(p)-tailCap:]...)
		c.pos, c.full = 0, true
		return n, nil
	}
	if !c.full {
		if room := tailCap - len(c.tail); len(p) <= room {
			c.tail = append(c.tail, p...)
			if len(c.tail) == tailCap {
				c.full = true
			}
			return n, nil
		}
		// Fill up, then wrap.
		room := tailCap - len(c.tail)
		c.tail = append(c.tail, p[:room]...)
		p = p[room:]
		c.full, c.pos = true, 0
	}
	for len(p) > 0 {
		k := copy(c.tail[c.pos:], p)
		p = p[k:]
		c.pos = (c.pos + k) % tailCap
	}
	return n, nil
}

// text returns what was kept, as valid UTF-8, with a marker where bytes
// were dropped, and the number dropped. A character cut by the drop is
// removed whole rather than shown as a broken byte.
func (c *capture) text() (string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tail
	if c.full {
		tail = append(append([]byte(nil), c.tail[c.pos:]...), c.tail[:c.pos]...)
	}
	dropped := c.total - int64(len(c.head)) - int64(len(tail))
	if dropped == 0 {
		return strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD"), 0
	}
	head := trimCutEnd(c.head)
	tail = trimCutStart(tail)
	dropped = c.total - int64(len(head)) - int64(len(tail))
	var b strings.Builder
	b.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %d bytes dropped ...]\n", dropped)
	b.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	return b.String(), dropped
}

// trimCutEnd drops an incomplete UTF-8 sequence at the end of b.
func trimCutEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimCutStart drops the continuation bytes of a character whose start was
// cut off.
func trimCutStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}

// result writes the outcome for the model: how the command ended first,
// then the stdout and stderr sections, each always present so that an
// empty one reads as empty rather than forgotten.
func (o *outcome) result() tools.Result {
	var b strings.Builder
	failed := false
	switch {
	case o.timedOut:
		failed = true
		fmt.Fprintf(&b, "timed out after %s: the command and every process it started were killed\n", o.timeout)
	case o.canceled != nil:
		failed = true
		fmt.Fprintf(&b, "canceled (%v): the command and every process it started were killed\n", o.canceled)
	}
	switch {
	case o.state == nil:
		failed = true
		b.WriteString("exit code: unknown (the command did not die after SIGKILL; it may be stuck in the kernel)\n")
	case o.state.ExitCode() >= 0:
		fmt.Fprintf(&b, "exit code: %d\n", o.state.ExitCode())
		failed = failed || o.state.ExitCode() != 0
	default:
		failed = true
		sig := "unknown"
		if ws, ok := o.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig = ws.Signal().String()
		}
		fmt.Fprintf(&b, "exit code: none (killed by signal: %s)\n", sig)
	}
	if o.unkillable && o.state != nil {
		failed = true
		b.WriteString("warning: a process of the command survived SIGKILL; it may be stuck in the kernel\n")
	}
	if o.leftovers {
		b.WriteString("note: processes left running in the background were killed when the command exited\n")
	}
	if o.incomplete {
		b.WriteString("note: the output may be incomplete: a process that left the command's process group kept it open\n")
	}
	out, outDropped := o.stdout.text()
	errText, errDropped := o.stderr.text()
	section(&b, "stdout", out)
	section(&b, "stderr", errText)
	return tools.Result{
		Content:   strings.TrimRight(b.String(), "\n"),
		IsError:   failed,
		Truncated: outDropped > 0 || errDropped > 0,
	}
}

func section(b *strings.Builder, name, text string) {
	fmt.Fprintf(b, "--- %s ---\n", name)
	if text == "" {
		b.WriteString("(empty)\n")
		return
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
}
