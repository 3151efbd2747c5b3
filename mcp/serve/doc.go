// Package serve makes Moteur an MCP server (moteur mcp serve): the
// knowledge tools of package tools/kb (search_knowledge, read_document,
// list_documents) and the quick answer of package rag (ask), offered to any
// MCP client over stdio or streamable HTTP, each result with its citations
// as structured content.
//
// It serves only what reads: a tool whose risk is not effect.RiskRead is
// refused at start-up, and every tool is announced with readOnlyHint.
//
// Classified documents stay home. Moteur cannot know where a client sends
// what it receives (a remote model, a log), so a passage of a classified
// document is withheld unless the operator passes ServeClassified
// (--serve-classified). A document is classified when its path matched a
// classification rule when it was added or matches one now, or when its
// title, metadata or any of its passages carries a marking (package
// classify): the stricter reading, since a stamp on the first page
// classifies the whole document. Withholding happens in the store the
// tools read (guard), before any tool renders a passage, and every
// withholding is said in the result: which document, which rule, how to
// allow it.
//
// A Server is safe for concurrent use: the tools, the guard and the
// citation table serve every session at once.
package serve
