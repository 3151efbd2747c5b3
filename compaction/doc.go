// Package compaction keeps a conversation inside the model's context window.
//
// It has three parts. An Estimator counts tokens with the cl100k_base BPE
// tables (embedded, so it works offline) and a per-session scale that
// calibrates it against what the provider reports, since cl100k is rarely the
// model's own tokenizer. A Compactor decides cheaply before each send whether
// the history passes the threshold (Due) and, when it does, replaces the
// oldest messages by a structured summary asked of the model (Compact),
// falling back to a trimmed archive of the original messages when the model
// cannot summarise. TruncateToolResults is a separate, request-time step for
// histories that still do not fit.
//
// The invariant the engine and Restore rely on: a compaction's new history is
// exactly [SummaryMessage(Summary)] followed by old[Replaced:]. Compact never
// edits a kept message, so replaying the ContextCompacted event rebuilds the
// same history.
package compaction
