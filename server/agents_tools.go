package server

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb/retrieval"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
	kbtools "github.com/moteur/moteur/tools/kb"
	"github.com/moteur/moteur/tools/plan"
	"github.com/moteur/moteur/tools/shell"
)

// Tool groups of the catalogue, for an editor that shows them by kind.
const (
	toolGroupKnowledge = "knowledge"
	toolGroupFiles     = "files"
	toolGroupShell     = "shell"
	toolGroupPlanning  = "planning"
	toolGroupAgents    = "agents"
	// toolGroupSeed holds the names seed 000's defaults and presets use
	// for tools this Moteur does not build (search_conversations,
	// data_schema, data_analysis): accepted in allowed_tools so that a
	// preset applies as it is, and giving no tool.
	toolGroupSeed = "seed"
)

// toolInfo is one entry of GET /api/v1/agents/tools.
type toolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Default: an agent whose allowed_tools is null gets it.
	Default bool `json:"default"`
	// Available: this Moteur has the tool; false for a name seed 000
	// knows and Moteur does not build.
	Available bool   `json:"available"`
	Group     string `json:"group"`
}

// managedElsewhere are the tools seed 000 takes out of allowed_tools: their
// own switches (web search, memory) decide, not the list.
var managedElsewhere = []string{"web_search", "web_fetch", "search_memory"}

var (
	catalogueOnce sync.Once
	catalogue     []toolInfo
)

// toolCatalogue returns the tools an agent's allowed_tools may name: the
// built-in tools app registers in a session (planning, files, shell,
// knowledge, sub-agents), then the names the seed's defaults and presets
// use that Moteur does not build. The descriptions are the tools' own
// (their first sentence) where a tool describes itself without a session.
func toolCatalogue() []toolInfo {
	catalogueOnce.Do(func() { catalogue = buildCatalogue() })
	return slices.Clone(catalogue)
}

func buildCatalogue() []toolInfo {
	var out []toolInfo
	add := func(group string, t tools.Tool) {
		out = append(out, toolInfo{Name: t.Name(), Description: firstSentence(t.Description()), Available: true, Group: group})
	}
	add(toolGroupPlanning, &plan.Thinking{})
	add(toolGroupPlanning, &plan.TodoWrite{})
	for _, t := range []tools.Tool{&files.ReadFile{}, &files.WriteFile{}, &files.EditFile{}, &files.ListFiles{}, &files.Glob{}, &files.Grep{}} {
		add(toolGroupFiles, t)
	}
	// The shell tool describes its sandbox, which it probes when made:
	// its first sentence is the same in every case.
	out = append(out, toolInfo{Name: shell.Name, Available: true, Group: toolGroupShell,
		Description: "Run a shell command (bash -c) in the project and get its exit code, stdout and stderr."})
	for _, t := range knowledgeTools() {
		add(toolGroupKnowledge, t)
	}
	out = append(out, toolInfo{Name: agents.ToolName, Available: true, Group: toolGroupAgents,
		Description: "Hand a task to a sub-agent of the session's catalogue (when sub-agents are configured)."})
	known := map[string]bool{}
	for _, t := range out {
		known[t.Name] = true
	}
	for _, name := range seedToolNames() {
		if !known[name] {
			known[name] = true
			out = append(out, toolInfo{Name: name, Group: toolGroupSeed,
				Description: "Named by seed 000's defaults or presets; not built into this Moteur: accepted, gives no tool."})
		}
	}
	defaults := agentconfig.DefaultAllowedTools()
	for i := range out {
		out[i].Default = slices.Contains(defaults, out[i].Name)
	}
	return out
}

// catalogueStore is the knowledge tools' store in the catalogue: they are
// made to describe themselves and never run, so only the retrieval
// settings their schema shows are there.
type catalogueStore struct{ kbtools.Store }

func (catalogueStore) Retrieval() retrieval.Settings { return retrieval.Settings{}.WithDefaults() }

// knowledgeTools are the three knowledge tools, made for a placeholder
// base: their descriptions name the session's bases, here "…".
func knowledgeTools() []tools.Tool {
	reg := tools.NewRegistry(tools.Config{})
	if err := kbtools.Register(reg, kbtools.Config{Store: catalogueStore{}, Bases: []string{"…"}}); err != nil {
		return nil
	}
	var out []tools.Tool
	for _, name := range []string{kbtools.SearchName, kbtools.ReadName, kbtools.ListName} {
		if t, ok := reg.Lookup(name); ok {
			out = append(out, t)
		}
	}
	return out
}

// seedToolNames are the tool names of the default list and of the
// presets, in that order.
func seedToolNames() []string {
	names := agentconfig.DefaultAllowedTools()
	presets, err := agentconfig.Presets(i18n.EN)
	if err != nil {
		return names
	}
	for _, p := range presets {
		names = append(names, p.AllowedTools...)
	}
	return names
}

// firstSentence is a description's first sentence (or line).
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// normaliseAllowedTools checks an agent's allowed_tools against the
// catalogue as seed 000 says: null stays null (the default list), a
// retired name becomes its successor, the names managed by their own
// switches (web_search, web_fetch, search_memory) are taken out, and an
// unknown name is an *agentconfig.FieldError naming it (all of them,
// joined). Duplicates made by the renames are dropped.
func normaliseAllowedTools(list []string) ([]string, error) {
	if list == nil {
		return nil, nil
	}
	known := map[string]bool{}
	for _, t := range toolCatalogue() {
		known[t.Name] = true
	}
	legacy := tools.DefaultLegacy()
	out := make([]string, 0, len(list))
	var errs []error
	for i, name := range list {
		if next, ok := legacy[name]; ok {
			name = next
		}
		switch {
		case strings.TrimSpace(name) == "":
			// agentconfig.Validate names an empty entry.
		case slices.Contains(managedElsewhere, name):
			continue
		case !known[name]:
			errs = append(errs, &agentconfig.FieldError{Field: fmt.Sprintf("allowed_tools[%d]", i),
				Reason: fmt.Sprintf("unknown tool %q (GET /api/v1/agents/tools lists them)", clip(name))})
			continue
		case slices.Contains(out, name):
			continue
		}
		out = append(out, name)
	}
	return out, errors.Join(errs...)
}
