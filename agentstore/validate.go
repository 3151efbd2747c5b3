package agentstore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/ident"
)

// Limits of the fields this package owns (the config's are agentconfig's).
const (
	MaxNameLen        = 100  // characters
	MaxDescriptionLen = 2000 // characters
)

// maxIDLen bounds an agent id. It travels in URLs and command lines, so
// ident's rule keeps out spaces, slashes and other surprises.
const maxIDLen = 64

// validID reports whether id may name an agent.
func validID(id string) bool { return ident.Valid(id, maxIDLen) }

// prepare returns the agent as it will be stored: the name trimmed, not a
// built-in, its config a copy with EnsureDefaults applied. It reports every
// bad field at once, each an *agentconfig.FieldError (errors.As finds the
// first; errors.Is(err, agentconfig.ErrInvalid) holds).
func prepare(a agentconfig.Agent) (agentconfig.Agent, error) {
	a.Name = strings.TrimSpace(a.Name)
	a.Builtin = false
	a.Config = a.Config.Clone()
	a.Config.EnsureDefaults()
	var errs []error
	if a.ID != "" && !validID(a.ID) {
		errs = append(errs, fieldError("id", "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"))
	}
	if err := checkText("name", a.Name, MaxNameLen, false); err != nil {
		errs = append(errs, err)
	}
	if err := checkText("description", a.Description, MaxDescriptionLen, true); err != nil {
		errs = append(errs, err)
	}
	if err := a.Config.Validate(); err != nil {
		errs = append(errs, err) // as Validate returns them: the server names the field
	}
	if len(errs) > 0 {
		return a, &invalidError{agent: describe(a), errs: errs}
	}
	return a, nil
}

// invalidError is every bad field of an agent, on one line (a message
// that also travels in JSON and on a terminal's single error line);
// errors.As finds each *agentconfig.FieldError.
type invalidError struct {
	agent string
	errs  []error
}

func (e *invalidError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return e.agent + ": " + strings.Join(msgs, "; ")
}

func (e *invalidError) Unwrap() []error { return e.errs }

func checkText(field, v string, maxLen int, multiline bool) error {
	switch {
	case v == "" && !multiline:
		return fieldError(field, "required")
	case !utf8.ValidString(v):
		return fieldError(field, "is not valid UTF-8")
	case utf8.RuneCountInString(v) > maxLen:
		return fieldError(field, fmt.Sprintf("longer than %d characters", maxLen))
	case strings.ContainsFunc(v, func(r rune) bool { return isControl(r, multiline) }):
		return fieldError(field, "contains a control character")
	}
	return nil
}

func isControl(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\t') {
		return false
	}
	return r < 0x20 || r == 0x7f
}

func fieldError(field, reason string) error {
	return &agentconfig.FieldError{Field: field, Reason: reason}
}

// describe names an agent in an error: its name, else its id.
func describe(a agentconfig.Agent) string {
	switch {
	case a.Name != "":
		return fmt.Sprintf("agent %q", a.Name)
	case a.ID != "":
		return fmt.Sprintf("agent %s", a.ID)
	}
	return "agent"
}
