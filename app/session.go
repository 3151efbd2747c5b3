package app

import (
	"context"
	"errors"
	"strings"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/skills"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/websnap"
)

// Session is an engine wired to one live session: the session's lease
// held, its sinks open, until Close. The engine reads the session's stored
// events back before its first turn.
type Session struct {
	// Engine runs the session's turns (Engine.SubmitInput with ID).
	Engine *engine.Engine
	// ID is the session's id.
	ID string
	// LastSeq is the seq of the session's last stored event when it was
	// opened (0: a new session).
	LastSeq uint64
	// Store is the session store; it is closed with the session.
	Store session.Store
	// Settings are what the session was opened with.
	Settings *Settings
	// Warnings are what the user should know before the first turn runs,
	// one line each: an event the store got from the audit log, a
	// transcript rebuilt, checkpoints left in clear.
	Warnings []string

	live  *liveSession
	tools *sessionTools // nil for a rewind's
	kb    *kb.Store     // the knowledge bases' store, nil without them
	mcp   *mcp.Manager  // the session's MCP servers, nil without them
	// snaps keeps the pages the web tools read (nil for a rewind's).
	snaps *websnap.Store
	// skills are the session's skills (the model's, and /NAME's).
	skills *skills.Set
}

// Skills are the session's skills: what /NAME and --skill invoke.
func (ses *Session) Skills() *skills.Set { return ses.skills }

// Open opens a session for new turns: LoadSettings, then Settings.Open.
func Open(ctx context.Context, o Options) (*Session, error) {
	s, err := LoadSettings(o)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx)
}

// Open prepares the turns of the session the options name (a new one when
// none): the sandbox, the providers, the system prompt, the checkpoints,
// the tools, then the session, continued from the store when it exists
// there. What the configuration can refuse is checked before anything is
// created, and the session comes last: a failed Open leaves no session
// behind (no lease, no audit log, no transcript).
func (s *Settings) Open(ctx context.Context) (_ *Session, err error) {
	o, cfg := s.opts, s.Config
	sandbox, err := sandboxMode(o.Sandbox, cfg, s.Lang)
	if err != nil {
		return nil, err
	}
	// The bases are checked against the agent's before anything is made.
	bases, err := agentBases(o.KnowledgeBases, s.agent, s.Lang)
	if err != nil {
		return nil, err
	}
	allow := allowTool(s.agent)
	var deps engine.Deps
	var keyNotes []string
	if !o.NoModel {
		prov, router, err := providersIn(cfg, false, s.Lang)
		if err != nil {
			return nil, err
		}
		deps.Provider, deps.Router = prov, router
		deps.ContextWindow = cfg.Providers[0].ContextWindow
		keyNotes = keyWarnings(cfg, s.Lang)
	}
	if deps.SystemPrompt, deps.Instructions, err = systemPrompt(o.ProjectRoot, s.Lang); err != nil {
		return nil, err
	}
	id, err := o.sessionID()
	if err != nil {
		return nil, err
	}
	ses := &Session{ID: id, Settings: s, Warnings: keyNotes}
	defer func() {
		if err != nil {
			err = errors.Join(err, ses.Close())
		}
	}()
	cps, warning, err := s.openCheckpoints(ctx, true)
	if err != nil {
		return nil, err
	}
	ses.warn(warning)
	if ses.skills, err = s.Skills(); err != nil {
		return nil, err
	}
	for _, p := range ses.skills.Problems() {
		ses.warn("skills: " + p.Error())
	}
	ses.snaps = s.Database().Snapshots()
	if ses.tools, err = newSessionTools(o.ProjectRoot, cps, sandbox, s.classifier, ses.skills, ses.snaps.Session(ses.ID), allow, o.Tools); err != nil {
		return nil, err
	}
	// The sub-agents' prompt starts from the prompt without the skills;
	// those that may read files get the skills section after their own.
	deps.BasePrompt = deps.SystemPrompt
	// read_file serves the skills: the model learns of them in the
	// prompt (level 1) and reads them on demand.
	// An agent without read_file cannot read them: no section.
	_, canRead := ses.tools.reg.Lookup("read_file")
	if section := ses.skills.Section(s.Lang); section != "" && canRead {
		deps.SystemPrompt += "\n\n" + section
		deps.SkillsSection = section
	}
	var named []string
	var dataSection string
	if ses.kb, named, dataSection, err = s.knowledgeTools(ctx, bases, ses.tools, allow); err != nil {
		return nil, err
	}
	if ses.kb != nil && len(named) > 0 {
		deps.SystemPrompt += "\n\n" + i18n.KnowledgePrompt(s.Lang, strings.Join(named, ", "), s.citations())
	}
	if dataSection != "" {
		deps.SystemPrompt += "\n\n" + dataSection
	}
	notes, err := s.webTools(ses.tools.reg, ses.tools.web)
	if err != nil {
		return nil, err
	}
	ses.Warnings = append(ses.Warnings, notes...)
	// The agent's prompt comes after Moteur's, whose rules prevail.
	if section := agentPrompt(s.Lang, s.agent); section != "" {
		deps.SystemPrompt += "\n\n" + section
	}
	if _, mcpOK := agentMCP(s.agent); !o.NoMCP && mcpOK {
		if err := ses.openMCP(ctx, cps, &deps); err != nil {
			return nil, err
		}
	}
	// The session comes last among the preparations, so that a failed
	// preparation leaves nothing behind, and before the engine, which must
	// never run without its audit log.
	if err := ses.openLive(ctx, o); err != nil {
		return nil, err
	}
	deps.Tools = ses.tools.reg
	var warnings []string
	if allow == nil || allow(agents.ToolName) {
		deps.Agents, warnings = s.Agents(ses.tools.reg.Names())
		ses.Warnings = append(ses.Warnings, warnings...)
	}
	for _, name := range unknownTools(s.agent, ses.tools.reg.Names()) {
		ses.warn(i18n.Trf(s.Lang, "agent %s: allowed tool %s is not a tool of Moteur: ignored", agentName(s.agent), name))
	}
	if deps.Hooks, warnings, err = s.Hooks(); err != nil {
		return nil, err
	}
	ses.Warnings = append(ses.Warnings, warnings...)
	// A sub-agent's answer is a tool result like another: the same bound.
	deps.OutputLimit = tools.DefaultMaxOutput
	deps.TranscriptPath = TranscriptPath(o.DataDir, ses.ID)
	deps.Notify = o.Interactive
	deps.MaxIterations = maxIterations(o.MaxIterations, s.agent)
	deps.ApprovalTimeout = o.ApprovalTimeout
	if s.agent != nil {
		deps.AgentID = s.agent.ID
		deps.StallTimeout = s.agent.Config.LLMCallTimeoutDuration()
		deps.Temperature, deps.MaxTokens, deps.NoThinking = requestOptions(s.agent)
	}
	// The engine reads the stored events back before the session's first
	// turn: Open reads none of them.
	deps.Store = ses.live.store
	if ses.Engine, err = s.engine(deps, cps, ses.live); err != nil {
		return nil, err
	}
	return ses, nil
}

// openLive opens the live session of ses.ID in the data directory of o,
// and takes its store and its warnings.
func (ses *Session) openLive(ctx context.Context, o Options) error {
	// A rewind opens its session without settings: it reads the database
	// choice itself; a session takes the one its settings read.
	lang := Language(o)
	var db Database
	if ses.Settings != nil {
		lang, db = ses.Settings.Lang, ses.Settings.Database()
	} else {
		var err error
		if db, err = DatabaseOf(o.Env, o.DataDir); err != nil {
			return err
		}
	}
	ls, err := openLiveSession(ctx, o.Env, db, ses.ID, o.Store, lang)
	if err != nil {
		return err
	}
	ses.live, ses.Store, ses.LastSeq = ls, ls.store, ls.lastSeq
	ses.Warnings = append(ses.Warnings, ls.warnings...)
	return nil
}

// End runs the session's SessionEnd hooks (reason: "prompt_input_exit"
// when the user left a chat, "other" otherwise), once its turns are over;
// Close does not run them.
func (ses *Session) End(ctx context.Context, reason string) error {
	if ses.Engine == nil {
		return nil
	}
	return ses.Engine.EndSession(ctx, ses.ID, reason)
}

// Resumed reports that the session had stored events when it was opened.
func (ses *Session) Resumed() bool { return ses.LastSeq > 0 }

// ProjectRoot is the project the session's files are in.
func (ses *Session) ProjectRoot() string { return ses.Settings.ProjectRoot() }

// ShellSandbox is how the session's shell commands are isolated, as its
// shell tool describes it (shell.Exec.Describe): kind "bwrap", "none" (the
// user's full rights; detail says why when bubblewrap was wanted), or
// "unavailable" (bubblewrap required and not usable: every command is
// refused). Both are "" for a session without a shell tool (a rewind's).
func (ses *Session) ShellSandbox() (kind, detail string) {
	if ses.tools == nil {
		return "", ""
	}
	return ses.tools.shell.Describe()
}

// Close ends the session's use by this process: the sinks closed (the
// audit log removed when this process created it and wrote nothing), the
// lease released, the stores and the tools closed.
func (ses *Session) Close() error {
	var err error
	if ses.live != nil {
		err = ses.live.close()
	}
	if ses.tools != nil {
		err = errors.Join(err, ses.tools.close())
	}
	if ses.kb != nil {
		err = errors.Join(err, ses.kb.Close())
	}
	if ses.mcp != nil {
		err = errors.Join(err, ses.mcp.Close())
	}
	if ses.snaps != nil {
		err = errors.Join(err, ses.snaps.Close())
	}
	return err
}

// warn adds a warning unless it is empty.
func (ses *Session) warn(w string) {
	if w != "" {
		ses.Warnings = append(ses.Warnings, w)
	}
}
