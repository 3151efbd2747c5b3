package agents

import "github.com/moteur/moteur/i18n"

// Names of the built-in agents.
const (
	GeneralPurpose = "general-purpose"
	Explore        = "explore"
)

// ExploreTools are the read-only explorer's tools: the file readers and
// searchers and the knowledge tools (narrowed, like any allowlist, to what
// the parent has). No web tool: what the explorer reads stays local.
var ExploreTools = []string{"read_file", "list_files", "glob", "grep", "search_knowledge", "read_document", "list_documents"}

// builtins returns the built-in agents in lang l.
func builtins(l i18n.Lang) []Agent {
	return []Agent{
		{Name: GeneralPurpose, Description: i18n.GeneralPurposeDescription(l), Prompt: i18n.GeneralPurposePrompt(l), Source: Builtin},
		{Name: Explore, Description: i18n.ExploreDescription(l), Tools: append([]string(nil), ExploreTools...), Prompt: i18n.ExplorePrompt(l), Source: Builtin},
	}
}

// localized returns a with a built-in's description in lang l.
func localized(a Agent, l i18n.Lang) Agent {
	if a.Source != Builtin {
		return a
	}
	switch a.Name {
	case GeneralPurpose:
		a.Description = i18n.GeneralPurposeDescription(l)
	case Explore:
		a.Description = i18n.ExploreDescription(l)
	}
	return a
}
