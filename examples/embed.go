// Package examples holds the sample documents shipped with Moteur, embedded
// in the binary so that moteur demo finds them wherever it runs: go:embed
// cannot reach a parent directory, so the embedding lives beside them.
package examples

import "embed"

// Docs is the folder docs: a few short company documents in French and
// English (Markdown, text, HTML, CSV) that moteur demo ingests.
//
//go:embed docs
var Docs embed.FS
