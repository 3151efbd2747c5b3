package tools

import "maps"

// DefaultLegacy maps the names of retired tools to their successors. Models
// trained on transcripts, saved conversations and prompts still call the old
// names; resolving them saves a wasted round trip on "unknown tool". It
// returns a fresh map the caller may change.
func DefaultLegacy() map[string]string {
	return map[string]string{
		"knowledge_search":      "search_knowledge",
		"grep_chunks":           "search_knowledge",
		"list_knowledge_chunks": "read_document",
		"get_document_info":     "read_document",
		"wiki_read_source_doc":  "read_document",
	}
}

// maxLegacyHops bounds the walk along renames so that a cycle in a
// user-supplied map cannot loop forever.
const maxLegacyHops = 8

func copyLegacy(m map[string]string) map[string]string {
	if m == nil {
		return DefaultLegacy()
	}
	// Copied so that a caller changing its map later cannot race Lookup.
	return maps.Clone(m)
}
