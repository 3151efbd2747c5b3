package app

// An OptionError is an Options field the configuration refuses: a mode
// looser than the organisation's min_mode, shell commands unsandboxed under
// a profile that requires bubblewrap. The request is at fault, not the
// configuration.
type OptionError struct {
	// Option names the field as a user sets it: "mode", "sandbox".
	Option string
	// Err says what the value was and why it is refused.
	Err error
}

func (e *OptionError) Error() string { return e.Option + " " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// A ConfigError is a configuration that lacks what the request needs: no
// model at all, an embedding or rerank model without a server. Its message
// says what to set.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// A translatedError is an error worded in the run's language that wraps
// the error whose English message it replaces: fmt.Errorf's %w would print
// the wrapped sentinel's English text inside the French, and errors.Is must
// hold in every language.
type translatedError struct {
	msg string
	err error
}

func (e *translatedError) Error() string { return e.msg }
func (e *translatedError) Unwrap() error { return e.err }
