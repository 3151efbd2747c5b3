package agentconfig

import (
	"errors"
	"fmt"

	"github.com/moteur/moteur/i18n"
)

// ErrNotFound is returned for an unknown preset or built-in id.
var ErrNotFound = errors.New("not found")

// Presets returns the type presets in file order, named in l.
func Presets(l i18n.Lang) ([]Preset, error) {
	c, err := load()
	if err != nil {
		return nil, err
	}
	out := make([]Preset, 0, len(c.presets))
	for _, p := range c.presets {
		out = append(out, p.localised(l))
	}
	return out, nil
}

// PresetByID returns one preset, named in l.
func PresetByID(id string, l i18n.Lang) (Preset, error) {
	c, err := load()
	if err != nil {
		return Preset{}, err
	}
	for _, p := range c.presets {
		if p.ID == id {
			return p.localised(l), nil
		}
	}
	return Preset{}, fmt.Errorf("agentconfig: preset %q: %w", id, ErrNotFound)
}

// Builtins returns the built-in agents in file order, named in l, their
// configs with EnsureDefaults applied.
func Builtins(l i18n.Lang) ([]Agent, error) {
	c, err := load()
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(c.agents))
	for _, a := range c.agents {
		out = append(out, a.localised(l))
	}
	return out, nil
}

// BuiltinByID returns one built-in agent, named in l.
func BuiltinByID(id string, l i18n.Lang) (Agent, error) {
	c, err := load()
	if err != nil {
		return Agent{}, err
	}
	for _, a := range c.agents {
		if a.ID == id {
			return a.localised(l), nil
		}
	}
	return Agent{}, fmt.Errorf("agentconfig: built-in agent %q: %w", id, ErrNotFound)
}

// IsBuiltinID reports whether id names a built-in agent (reserved: a
// stored agent may not take it).
func IsBuiltinID(id string) bool {
	_, err := BuiltinByID(id, i18n.FR)
	return err == nil
}

func (p presetFile) localised(l i18n.Lang) Preset {
	out := p.Preset
	out.Name = p.NameText.In(l)
	out.Description = p.Description.In(l)
	if out.Temperature != nil {
		t := *out.Temperature
		out.Temperature = &t
	}
	out.WebSearchEnabled = cloneBool(out.WebSearchEnabled)
	out.AllowedTools = cloneList(out.AllowedTools)
	out.SupportedFileTypes = cloneList(out.SupportedFileTypes)
	out.KBFilter = KBFilter{AnyOf: cloneList(out.KBFilter.AnyOf), NoneOf: cloneList(out.KBFilter.NoneOf)}
	return out
}

func (a agentFile) localised(l i18n.Lang) Agent {
	cfg := a.Config.Clone()
	cfg.EnsureDefaults()
	return Agent{ID: a.ID, Name: a.Name.In(l), Description: a.Description.In(l), Builtin: true, Config: cfg}
}
