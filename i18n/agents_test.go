package i18n

import "testing"

func TestAgentTextsInBothLanguages(t *testing.T) {
	for name, f := range map[string]func(Lang) string{
		"AgentToolDescription": AgentToolDescription, "GeneralPurposeDescription": GeneralPurposeDescription,
		"GeneralPurposePrompt": GeneralPurposePrompt, "ExploreDescription": ExploreDescription,
		"ExplorePrompt": ExplorePrompt, "SubAgentPreamble": SubAgentPreamble,
	} {
		fr, en := f(FR), f(EN)
		if fr == "" || en == "" || fr == en || f("") != fr {
			t.Errorf("%s: fr %q, en %q", name, fr, en)
		}
	}
}
