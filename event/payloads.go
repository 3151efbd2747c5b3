package event

import (
	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	"slices"
)

// SessionStartedPayload opens a session: what it runs with.
type SessionStartedPayload struct {
	Provider      string   `json:"provider"`
	Model         string   `json:"model"`
	ProjectRoot   string   `json:"project_root,omitempty"`
	Instructions  []string `json:"instructions,omitempty"`
	Tools         []string `json:"tools"`
	MaxIterations int      `json:"max_iterations"`
	Lang          string   `json:"lang"`
	// Local reports that the provider runs on this machine or network and
	// may receive classified content.
	Local bool `json:"local,omitempty"`
	// Profile is the active compliance profile.
	Profile string `json:"profile,omitempty"`
	// Mode is the access mode in force (read_only, confirm, auto_write).
	Mode string `json:"mode,omitempty"`
	// Policy describes the organisation policy in force, nil when none.
	Policy *PolicyInfo `json:"policy,omitempty"`
	// Routing describes the provider candidates, nil when there is one.
	Routing *RoutingInfo `json:"routing,omitempty"`
	// Allowlists are the host lists providers are checked against.
	Allowlists [][]string `json:"allowlists,omitempty"`
	// Sandbox describes the shell's isolation, nil when not described.
	Sandbox *effect.Sandbox `json:"sandbox,omitempty"`
	MCP     []MCPServerInfo `json:"mcp,omitempty"`
	// Agent is the id of the custom agent the session runs as, "" for
	// none (the configuration's defaults).
	Agent string `json:"agent,omitempty"`
}

// masked implements masker: SessionStarted describes the configuration
// (providers, models, hosts, paths, tool names, the sandbox's account),
// which Moteur and the user chose; it holds no secret.
func (p SessionStartedPayload) masked() any { return p }

// PolicyInfo is the organisation policy as SessionStarted records it.
type PolicyInfo struct {
	Path         string   `json:"path"`
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	DeniedTools  []string `json:"denied_tools,omitempty"`
	Profile      string   `json:"profile,omitempty"`
	MinMode      string   `json:"min_mode,omitempty"`
}

// RoutingInfo describes the provider candidates of a session.
type RoutingInfo struct {
	Candidates []RouteCandidate `json:"candidates"`
}

// RouteCandidate is one provider a session may use.
type RouteCandidate struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Host     string `json:"host,omitempty"`
	Local    bool   `json:"local,omitempty"`
}

// UserMessagePayload is the user's input of a turn.
type UserMessagePayload struct {
	Text        string `json:"text"`
	Typed       string `json:"typed,omitempty"`
	Skill       string `json:"skill,omitempty"`
	SkillSHA256 string `json:"skill_sha256,omitempty"`
	// HookContext is text a UserPromptSubmit hook added; the model reads it
	// joined to Text.
	HookContext string `json:"hook_context,omitempty"`
	// Blocked marks a message a hook refused: recorded, never sent.
	Blocked bool `json:"blocked,omitempty"`
}

// masked implements masker: the user's words, and a hook's.
func (p UserMessagePayload) masked() any {
	p.mask()
	return p
}

// mask masks p in place and reports whether anything changed (see
// maskPayload's fast path).
func (p *UserMessagePayload) mask() bool {
	// Not ||: every field is masked, whichever held a secret.
	t, ty, h := maskField(&p.Text), maskField(&p.Typed), maskField(&p.HookContext)
	return t || ty || h
}

// AssistantMessagePayload is one model response kept in the conversation:
// a round that called tools, or the turn's answer.
type AssistantMessagePayload struct {
	Text      string         `json:"text"`
	Reasoning string         `json:"reasoning,omitempty"`
	ToolCalls []llm.ToolCall `json:"tool_calls,omitempty"`
	// Finish is the normalised finish reason of the response.
	Finish llm.FinishReason `json:"finish,omitempty"`
	// Truncated marks an answer cut by the output limit.
	Truncated bool `json:"truncated,omitempty"`
	// Synthetic marks text Moteur wrote itself (a fallback or the content
	// filter's notice) rather than the model.
	Synthetic bool       `json:"synthetic,omitempty"`
	Round     int        `json:"round"`
	Usage     *llm.Usage `json:"usage,omitempty"`
	Provider  string     `json:"provider,omitempty"`
	Model     string     `json:"model,omitempty"`
	// Citations are the sources the text cites ([c3]), mapped to the
	// chunks and documents they stand for.
	Citations []cite.Ref `json:"citations,omitempty"`
}

// masked implements masker: the model's text and reasoning, the arguments
// of its calls (as JSON), what its citations show of the documents.
func (p AssistantMessagePayload) masked() any {
	p.mask()
	return p
}

// mask masks p in place and reports whether anything changed (see
// maskPayload's fast path). Slices are replaced by masked copies, never
// written through.
func (p *AssistantMessagePayload) mask() bool {
	t, r := maskField(&p.Text), maskField(&p.Reasoning)
	calls, refs := maskToolCalls(p.ToolCalls), maskRefs(p.Citations)
	changed := t || r || !sameSlice(calls, p.ToolCalls) || !sameSlice(refs, p.Citations)
	p.ToolCalls, p.Citations = calls, refs
	return changed
}

// ToolResultPayload is the outcome of one tool call.
type ToolResultPayload struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
	Display    string `json:"display,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Round      int    `json:"round"`
	// Risk is the tool's risk class (read, probe, write, destructive).
	Risk string `json:"risk,omitempty"`
	// Synthetic marks an answer Moteur gave for a call that never got one
	// (a crash, a cut): the tool may or may not have run.
	Synthetic bool `json:"synthetic,omitempty"`
	// Changes lists the files the call changed, for rewinds.
	Changes []effect.Change `json:"changes,omitempty"`
	// NotUndoable marks a call a rewind cannot undo (a shell command).
	NotUndoable bool `json:"not_undoable,omitempty"`
	// References maps the aliases the result showed the model (bN, dN, cN)
	// to what they stand for; Restore rebuilds the session's aliases
	// from them.
	References []cite.Ref `json:"references,omitempty"`
	// Attachments are what the call returned besides text (images), kept
	// in the blobs by their SHA-256.
	Attachments []effect.Attachment `json:"attachments,omitempty"`
}

// masked implements masker: what the tool gave back, what its references
// show of the documents, and where its attachments came from. Changes are
// paths and content hashes.
func (p ToolResultPayload) masked() any {
	p.mask()
	return p
}

// mask masks p in place and reports whether anything changed (see
// maskPayload's fast path). Slices are replaced by masked copies, never
// written through.
func (p *ToolResultPayload) mask() bool {
	changed := maskField(&p.Content)
	refs := maskRefs(p.References)
	changed = changed || !sameSlice(refs, p.References)
	p.References = refs
	if len(p.Attachments) > 0 {
		// A name may be a URI that carries a token; the rest are hashes,
		// sizes and MIME types.
		p.Attachments = slices.Clone(p.Attachments)
		for i := range p.Attachments {
			changed = maskField(&p.Attachments[i].Name) || changed
		}
	}
	return changed
}

// ProviderRetryPayload records a transient provider failure about to be
// retried.
type ProviderRetryPayload struct {
	Attempt int    `json:"attempt"`
	DelayMS int64  `json:"delay_ms"`
	Error   string `json:"error"`
}

// masked implements masker: a provider's error may quote the request.
func (p ProviderRetryPayload) masked() any {
	maskField(&p.Error)
	return p
}

// Stop reasons of a turn, in TurnCompletedPayload.Reason.
const (
	StopNatural       = "stop"
	StopEmptyFallback = "empty_fallback"
	StopTruncated     = "truncated"
	StopLengthLimit   = "length_limit"
	StopContentFilter = "content_filter"
	StopRepeated      = "repeated"
	StopCancelled     = "cancelled"
	StopProviderError = "provider_error"
	StopMaxIterations = "max_iterations"
	StopError         = "error"
)

// TurnCompletedPayload closes a turn.
type TurnCompletedPayload struct {
	Reason string `json:"reason"`
	Answer string `json:"answer"`
	Rounds int    `json:"rounds"`
	// Requests counts every request sent to the provider, retries included.
	Requests  int       `json:"requests"`
	Usage     llm.Usage `json:"usage"`
	Truncated bool      `json:"truncated,omitempty"`
	// ContextScale is the session's token-estimate calibration (0: not
	// measured), which Restore reuses.
	ContextScale float64 `json:"context_scale,omitempty"`
}

// masked implements masker: the answer.
func (p TurnCompletedPayload) masked() any {
	maskField(&p.Answer)
	return p
}

// ErrorPayload reports a failure the user must see.
type ErrorPayload struct {
	Message string `json:"message"`
	// Kind is "provider", "audit", "cancelled" or "internal".
	Kind      string `json:"kind"`
	Transient bool   `json:"transient,omitempty"`
	Status    int    `json:"status,omitempty"`
}

// masked implements masker: an error may quote anything.
func (p ErrorPayload) masked() any {
	maskField(&p.Message)
	return p
}

// DeltaPayload is a streamed fragment of the answer or of the reasoning.
type DeltaPayload struct {
	Text  string `json:"text"`
	Round int    `json:"round"`
}

// ToolProgressPayload is what a running call said of how far it got (an
// MCP server's progress notification): shown while the call runs, never
// kept.
type ToolProgressPayload struct {
	CallID  string  `json:"call_id"`
	Name    string  `json:"name"`
	Message string  `json:"message,omitempty"`
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Round   int     `json:"round"`
}

// masked implements masker: a server's words about its work.
func (p ToolProgressPayload) masked() any {
	maskField(&p.Message)
	return p
}

// masked implements masker: a fragment of the model's text.
func (p DeltaPayload) masked() any {
	maskField(&p.Text)
	return p
}

// PermissionRequestedPayload asks the user whether a call may run.
type PermissionRequestedPayload struct {
	// ID is what Engine.Respond takes; Number is the per-session counter
	// it was made from.
	ID        string `json:"id"`
	Number    uint64 `json:"number"`
	CallID    string `json:"call_id"`
	Tool      string `json:"tool"`
	Summary   string `json:"summary"`
	Risk      string `json:"risk"`
	Sandboxed bool   `json:"sandboxed,omitempty"`
}

// masked implements masker: the summary quotes the call's arguments.
func (p PermissionRequestedPayload) masked() any {
	maskField(&p.Summary)
	return p
}

// PermissionResolvedPayload records the answer to a PermissionRequested:
// the user's, a remembered one, or the timeout's.
type PermissionResolvedPayload struct {
	ID       string `json:"id"`
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	Allow    bool   `json:"allow"`
	Remember bool   `json:"remember,omitempty"`
	Network  bool   `json:"network,omitempty"`
	// By is "user", "timeout" or "cancelled".
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
}

// masked implements masker: the reason is the user's words.
func (p PermissionResolvedPayload) masked() any {
	maskField(&p.Reason)
	return p
}

// WarningPayload tells the user something they should know that stops
// nothing (the jurisdiction warning of the restricted profile, …).
type WarningPayload struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// masked implements masker: the message may quote configuration.
func (p WarningPayload) masked() any {
	maskField(&p.Message)
	return p
}

// ContextCompactedPayload records that the oldest messages of the history
// were replaced by a summary.
type ContextCompactedPayload struct {
	Summary string `json:"summary"`
	// Replaced counts the messages replaced, system prompt excluded.
	Replaced     int    `json:"replaced"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Reason       string `json:"reason,omitempty"` // CompactThreshold, CompactOverflow or CompactManual
	SplitTurn    bool   `json:"split_turn,omitempty"`
	Degraded     bool   `json:"degraded,omitempty"`
	HookContext  string `json:"hook_context,omitempty"`
}

// Compaction reasons, in ContextCompactedPayload.Reason.
const (
	CompactThreshold = "threshold" // the history passed the threshold
	CompactOverflow  = "overflow"  // the provider rejected the context as too long
	CompactManual    = "manual"    // the user asked for it (Engine.Compact)
)

// masked implements masker: the summary retells the conversation; a
// hook's context is its own text.
func (p ContextCompactedPayload) masked() any {
	maskField(&p.Summary)
	maskField(&p.HookContext)
	return p
}

// SessionClassifiedPayload records that classified content entered the
// session, which is sensitive from then on.
type SessionClassifiedPayload struct {
	Marking string `json:"marking"`
	Source  string `json:"source"`
}

// masked implements masker: the marking and its source are the names of
// classification rules and of where content came from.
func (p SessionClassifiedPayload) masked() any { return p }

// ProviderSelectedPayload records a switch of provider.
type ProviderSelectedPayload struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Local    bool   `json:"local,omitempty"`
	Reason   string `json:"reason"`
}

// masked implements masker: the reason may quote a provider's error.
func (p ProviderSelectedPayload) masked() any {
	maskField(&p.Reason)
	return p
}

// MCPServerInfo describes an MCP server in use.
type MCPServerInfo struct {
	Name string `json:"name"`
	// Transport is stdio, http or sse.
	Transport string   `json:"transport,omitempty"`
	Tools     []string `json:"tools,omitempty"`
}

// McpServerDownPayload reports an MCP server that could not be reached.
type McpServerDownPayload struct {
	Name string `json:"name"`
	// Transport is stdio, http or sse.
	Transport string `json:"transport,omitempty"`
	Error     string `json:"error"`
}

// masked implements masker: the error may quote the server's command
// line or its output.
func (p McpServerDownPayload) masked() any {
	maskField(&p.Error)
	return p
}

// HookStartedPayload records a user hook being run.
type HookStartedPayload struct {
	Hook  string `json:"hook"`
	Event string `json:"event"`
}

// masked implements masker: a hook's name and its event's.
func (p HookStartedPayload) masked() any { return p }

// HookCompletedPayload records a hook's outcome.
type HookCompletedPayload struct {
	Hook     string `json:"hook"`
	Event    string `json:"event"`
	ExitCode int    `json:"exit_code"`
	Blocked  bool   `json:"blocked,omitempty"`
	Output   string `json:"output,omitempty"`
}

// masked implements masker: the hook's output.
func (p HookCompletedPayload) masked() any {
	maskField(&p.Output)
	return p
}

// RewoundFile is the outcome of a rewind for one file.
type RewoundFile struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// RewoundPayload records a rewind to the point ToSeq.
type RewoundPayload struct {
	ToSeq uint64 `json:"to_seq"`
	Mode  string `json:"mode"`
	// Length is the number of history messages at the point.
	Length int           `json:"length"`
	Files  []RewoundFile `json:"files,omitempty"`
	Prompt string        `json:"prompt,omitempty"`
	Note   string        `json:"note,omitempty"`
}

// masked implements masker: the prompt rewound to, the note for the
// model, and each file's error.
func (p RewoundPayload) masked() any {
	maskField(&p.Prompt)
	maskField(&p.Note)
	p.Files = maskRewoundFiles(p.Files)
	return p
}

// KnowledgeRetrievedPayload records the retrieval of a quick answer: what
// was searched, how, and the passages given to the model under their
// aliases.
type KnowledgeRetrievedPayload struct {
	// Query is what was searched: the question, or its standalone rewrite.
	Query         string     `json:"query"`
	RequestedMode string     `json:"requested_mode"`
	Fallbacks     []string   `json:"mode_fallbacks,omitempty"`
	References    []cite.Ref `json:"references"`
	Candidates    int        `json:"candidates"`
	Reranked      bool       `json:"reranked,omitempty"`
	// RerankRejected reports that the reranker judged every candidate
	// irrelevant.
	RerankRejected bool   `json:"rerank_rejected,omitempty"`
	Hint           string `json:"hint,omitempty"`
}

// masked implements masker: the query, the hint, the fallbacks' reasons,
// and what the references show of the documents.
func (p KnowledgeRetrievedPayload) masked() any {
	maskField(&p.Query)
	maskField(&p.Hint)
	p.Fallbacks = maskStrings(p.Fallbacks)
	p.References = maskRefs(p.References)
	return p
}
