// Package plan holds the tools with which the model organises its own work
// rather than reaching outside: thinking (sequential, revisable reasoning
// steps) and todo_write (the step list of a retrieval task). Both keep
// ordered state per instance, so each session gets fresh instances and their
// calls are never run in parallel.
package plan

import (
	"fmt"

	"github.com/moteur/moteur/tools"
)

// Tool names, as the model calls them.
const (
	ThinkingName  = "thinking"
	TodoWriteName = "todo_write"
)

// Register adds fresh thinking and todo_write tools to r. Call it once per
// session: the tools' state belongs to the conversation.
func Register(r *tools.Registry) error {
	for _, t := range []tools.Tool{NewThinking(), NewTodoWrite()} {
		if err := r.Register(t); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
	}
	return nil
}
