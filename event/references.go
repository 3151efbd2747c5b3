package event

import "github.com/moteur/moteur/cite"

// References returns the citation references an event carries (a tool
// result's, or the passages of a quick answer's retrieval): what rebuilds a
// session's aliases. Other events carry none.
func References(e Event) []cite.Ref {
	switch p := e.Payload.(type) {
	case ToolResultPayload:
		return p.References
	case KnowledgeRetrievedPayload:
		return p.References
	}
	return nil
}
