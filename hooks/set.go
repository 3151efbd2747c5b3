package hooks

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Set is the hooks configured for a session, built by New. A nil *Set has
// no hooks. It is immutable once built and safe for concurrent use.
type Set struct {
	cfg          Config
	byEvent      map[Event][]*entry
	projectFiles []string
	projectSum   string
}

// entry is one configured hook with the matcher of its group.
type entry struct {
	hook    Hook
	match   *matcher
	timeout time.Duration
	project bool
}

// Has reports whether any hook is configured for ev, so that the engine
// can skip building an Input when none would run.
func (s *Set) Has(ev Event) bool {
	if s == nil {
		return false
	}
	return len(s.byEvent[ev]) > 0
}

// selected is a hook that matches an Input, with the shape it sees.
type selected struct {
	e *entry
	v view
}

func (s *Set) matching(in Input) []selected {
	var out []selected
	for _, e := range s.byEvent[in.Event] {
		v := viewMoteur
		switch in.Event {
		case PreToolUse, PostToolUse:
			v = e.match.toolView(in.ToolName)
		case SessionStart, SessionEnd, PreCompact:
			if !e.match.match(subject(in)) {
				v = viewNone
			}
		}
		if v != viewNone {
			out = append(out, selected{e, v})
		}
	}
	return out
}

// Run runs the hooks of in.Event that match in, all at once, each with its
// timeout; tells obs (which may be nil) of each as it starts and
// completes; and combines their verdicts in configuration order (see
// Outcome). A hook that fails to run, times out, exits with a code other
// than 0 and 2, or prints invalid JSON is reported to obs and otherwise
// ignored. A nil *Set returns a zero Outcome.
func (s *Set) Run(ctx context.Context, in Input, obs Observer) Outcome {
	if s == nil {
		return Outcome{}
	}
	sel := s.matching(in)
	if len(sel) == 0 {
		return Outcome{}
	}
	root := s.cfg.ProjectDir
	if root == "" {
		root = in.CWD
	}
	cwd := orDefault(in.CWD, root)
	env := append(s.cfg.Environ(), "CLAUDE_PROJECT_DIR="+root, "MOTEUR_PROJECT_DIR="+root)
	var stdin [3][]byte // by view, encoded once
	for _, x := range sel {
		if stdin[x.v] == nil {
			stdin[x.v] = encodeInput(in, cwd, root, x.v)
		}
	}
	verdicts := make([]verdict, len(sel))
	var wg sync.WaitGroup
	for i, x := range sel {
		wg.Go(func() {
			if obs != nil {
				obs.Started(in.Event, x.e.hook)
			}
			r := execHook(ctx, s.cfg.Shell, x.e.hook.Command, cwd, env, stdin[x.v], x.e.timeout)
			v, res := interpret(in.Event, x.e.hook, r)
			if v.updated != nil && x.v == viewClaude {
				upd, err := fromClaude(in.ToolName, in.ToolInput, v.updated, root)
				if err != nil {
					res.Err = joinErr(res.Err, fmt.Errorf("%s: %w (ignored)", x.e.hook.Source, err))
				}
				v.updated = upd
			}
			verdicts[i] = v
			if obs != nil {
				obs.Completed(in.Event, x.e.hook, res)
			}
		})
	}
	wg.Wait()
	return combine(verdicts)
}

// strictness orders permission decisions: deny > ask > allow > none.
func strictness(d string) int {
	return map[string]int{"allow": 1, "ask": 2, "deny": 3}[d]
}

// combine joins the verdicts of one event's hooks, in configuration order:
// any block wins, the strictest decision counts, contexts are joined, and
// the first hook's updatedInput is the one used (hooks run on the same
// call at once, so they cannot build on each other's change).
func combine(vs []verdict) Outcome {
	var o Outcome
	var blockReasons, contexts, stops []string
	byDecision := map[string][]string{}
	for _, v := range vs {
		if v.block {
			o.Block = true
			blockReasons = appendNonEmpty(blockReasons, v.reason)
		}
		if strictness(v.decision) > strictness(o.Decision) {
			o.Decision = v.decision
		}
		if v.decision != "" {
			byDecision[v.decision] = appendNonEmpty(byDecision[v.decision], v.reason)
		}
		contexts = appendNonEmpty(contexts, v.context)
		if v.stop {
			o.Stop = true
			stops = appendNonEmpty(stops, v.stopMsg)
		}
		if o.UpdatedInput == nil && v.updated != nil && !v.block {
			o.UpdatedInput = v.updated
		}
	}
	switch {
	case o.Block:
		o.Reason = strings.Join(blockReasons, "\n")
	case o.Decision != "":
		o.Reason = strings.Join(byDecision[o.Decision], "\n")
	}
	if o.Block || o.Decision == "deny" {
		// The call does not run: an update to it means nothing.
		o.UpdatedInput = nil
	}
	o.Context = strings.Join(contexts, "\n\n")
	o.StopReason = strings.Join(stops, "\n")
	return o
}

func appendNonEmpty(list []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		return append(list, s)
	}
	return list
}
