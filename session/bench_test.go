package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
)

// benchStore opens a store on a new file with the given synchronous mode.
func benchStore(b *testing.B, synchronous string) *SQLite {
	b.Helper()
	s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: filepath.Join(b.TempDir(), "moteur.db"), synchronous: synchronous})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// turnEvent is the i-th event of a realistic session: a user message, an
// assistant message calling a tool, a tool result of a couple of KB, an
// answer, a turn's end, over and over.
func turnEvent(id string, seq uint64) event.Event {
	e := event.Event{Seq: seq, SessionID: id, Time: time.Unix(1_800_000_000, 0).Add(time.Duration(seq) * time.Second).UTC()}
	switch seq % 5 {
	case 1:
		e.Type, e.Payload = event.UserMessage, event.UserMessagePayload{Text: "Peux-tu lire config.yaml et m'expliquer la section providers ? " + fmt.Sprint(seq)}
	case 2:
		e.Type, e.Payload = event.AssistantMessage, event.AssistantMessagePayload{Text: "Je lis le fichier.",
			ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d", seq), Name: "read_file", Arguments: `{"path":"config.yaml"}`}},
			Finish:    llm.FinishToolCalls, Round: 1, Usage: &llm.Usage{PromptTokens: 1200, CompletionTokens: 40, TotalTokens: 1240},
			Provider: "mistral", Model: "mistral-large-latest"}
	case 3:
		e.Type, e.Payload = event.ToolResult, event.ToolResultPayload{CallID: fmt.Sprintf("call_%d", seq-1), Name: "read_file",
			Content: strings.Repeat("providers:\n  - name: mistral\n    base_url: https://api.mistral.ai/v1\n", 30), DurationMS: 3, Round: 1, Risk: "read"}
	case 4:
		e.Type, e.Payload = event.AssistantMessage, event.AssistantMessagePayload{Text: strings.Repeat("La section providers liste les modèles essayés dans l'ordre. ", 6),
			Finish: llm.FinishStop, Round: 2, Usage: &llm.Usage{PromptTokens: 2400, CompletionTokens: 150, TotalTokens: 2550}}
	default:
		e.Type, e.Payload = event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopNatural, Answer: "La section providers…",
			Rounds: 2, Requests: 2, Usage: llm.Usage{TotalTokens: 3790}}
	}
	return e
}

func reportRate(b *testing.B, events int) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppend appends one event per transaction: what the engine does
// for every event of a turn.
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []string{"FULL", "NORMAL"} {
		b.Run("sync="+mode, func(b *testing.B) {
			s := benchStore(b, mode)
			ctx := context.Background()
			n := 0
			for b.Loop() {
				n++
				if err := s.Append(ctx, turnEvent("bench", uint64(n))); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, n)
		})
	}
}

// BenchmarkAppendWithHead is BenchmarkAppend with the audit head stored
// with each event, as session.Sink does behind the audit log.
func BenchmarkAppendWithHead(b *testing.B) {
	for _, mode := range []string{"FULL", "NORMAL"} {
		b.Run("sync="+mode, func(b *testing.B) {
			s := benchStore(b, mode)
			ctx := context.Background()
			head := [][]byte{make([]byte, HeadSize)}
			n := 0
			for b.Loop() {
				n++
				head[0][0] = byte(n) // a head of its own
				if err := s.AppendWithHeads(ctx, []event.Event{turnEvent("bench", uint64(n))}, head); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, n)
		})
	}
}

// BenchmarkHeads100k reads the heads of a session of 100 000 events: what
// continuing it, or verifying its audit log, reads beside the log.
func BenchmarkHeads100k(b *testing.B) {
	s := benchStore(b, "OFF")
	ctx := context.Background()
	const total = 100_000
	head := make([]byte, HeadSize)
	for from := uint64(1); from <= total; from += 1000 {
		var batch []event.Event
		var heads [][]byte
		for seq := from; seq < from+1000; seq++ {
			batch = append(batch, event.Event{Seq: seq, Type: event.UserMessage, SessionID: "big", Time: time.Unix(int64(seq), 0),
				Payload: event.UserMessagePayload{Text: "x"}})
			heads = append(heads, head)
		}
		if err := s.AppendWithHeads(ctx, batch, heads); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		hs, err := s.Heads(ctx, "big")
		if err != nil || len(hs) != total {
			b.Fatalf("%d heads, %v", len(hs), err)
		}
	}
}

// BenchmarkAppendBatch appends 100 events per transaction.
func BenchmarkAppendBatch(b *testing.B) {
	s := benchStore(b, "")
	ctx := context.Background()
	const size = 100
	seq, n := uint64(0), 0
	batch := make([]event.Event, size)
	for b.Loop() {
		for i := range batch {
			seq++
			batch[i] = turnEvent("bench", seq)
		}
		if err := s.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
		n += size
	}
	reportRate(b, n)
}

// BenchmarkLoad10k loads a session of 10 000 events.
func BenchmarkLoad10k(b *testing.B) {
	s := benchStore(b, "OFF")
	ctx := context.Background()
	const total = 10_000
	for from := uint64(1); from <= total; from += 500 {
		var batch []event.Event
		for seq := from; seq < from+500; seq++ {
			batch = append(batch, turnEvent("big", seq))
		}
		if err := s.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		evs, err := s.Load(ctx, "big")
		if err != nil || len(evs) != total {
			b.Fatalf("%d events, %v", len(evs), err)
		}
		n += total
	}
	reportRate(b, n)
}

// BenchmarkList10k lists the first page over 10 000 sessions, all of them
// and those of one project.
func BenchmarkList10k(b *testing.B) {
	s := benchStore(b, "OFF")
	ctx := context.Background()
	for i := range 10_000 {
		id := fmt.Sprintf("s%05d", i)
		root := fmt.Sprintf("/src/p%d", i%10)
		e1 := event.Event{Seq: 1, Type: event.SessionStarted, SessionID: id, Time: time.Unix(int64(1_800_000_000+i), 0),
			Payload: event.SessionStartedPayload{Provider: "p", Model: "m", ProjectRoot: root}}
		e2 := turnEvent(id, 1)
		e2.Seq, e2.Time = 2, e1.Time.Add(time.Second)
		if err := s.Append(ctx, e1, e2); err != nil {
			b.Fatal(err)
		}
	}
	for name, root := range map[string]string{"all": "", "project": "/src/p3"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, err := s.List(ctx, ListOptions{ProjectRoot: root})
				if err != nil || len(p.Sessions) != 50 || p.Next == "" {
					b.Fatalf("%d sessions, %v", len(p.Sessions), err)
				}
			}
		})
	}
	b.Run("page100", func(b *testing.B) {
		p, err := s.List(ctx, ListOptions{Limit: 100})
		for range 98 {
			p, err = s.List(ctx, ListOptions{Limit: 100, Cursor: p.Next})
		}
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			q, err := s.List(ctx, ListOptions{Limit: 100, Cursor: p.Next})
			if err != nil || len(q.Sessions) != 100 {
				b.Fatalf("%d sessions, %v", len(q.Sessions), err)
			}
		}
	})
}
