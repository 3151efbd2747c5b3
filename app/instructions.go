package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moteur/moteur/i18n"
)

// instructionsFile holds a project's instructions for agents, the name
// other tools use too.
const instructionsFile = "AGENTS.md"

// systemPrompt is the default prompt in lang followed, when the project
// root has an AGENTS.md, by its content; instructions lists the files
// loaded, for SessionStarted.
func systemPrompt(projectRoot string, lang i18n.Lang) (prompt string, instructions []string, err error) {
	prompt = i18n.SystemPrompt(lang)
	b, err := os.ReadFile(filepath.Join(projectRoot, instructionsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return prompt, nil, nil
	}
	if err != nil {
		// Running without instructions the project asked for would give
		// an agent that ignores its rules: stop instead.
		return "", nil, fmt.Errorf("read project instructions: %w", err)
	}
	heading := "Instructions du projet"
	if lang.Normalize() == i18n.EN {
		heading = "Project instructions"
	}
	prompt += "\n\n# " + heading + " (" + instructionsFile + ")\n\n" + string(b)
	return prompt, []string{instructionsFile}, nil
}
