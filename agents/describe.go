package agents

import (
	"strings"

	"github.com/moteur/moteur/i18n"
)

// Describe is the `agent` tool's description for the model in lang: what
// the tool does, its arguments, then one "- name: description" line per
// agent (a description's further lines indented under it).
func (c *Catalog) Describe(lang i18n.Lang) string {
	var b strings.Builder
	b.WriteString(i18n.AgentToolDescription(lang))
	for _, a := range c.List() {
		a = localized(a, lang)
		b.WriteString("\n- ")
		b.WriteString(a.Name)
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(a.Description), "\n", "\n  "))
	}
	return b.String()
}
