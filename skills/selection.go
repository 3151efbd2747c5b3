package skills

import (
	"fmt"
	"slices"
)

// Mode is how the configuration selects skills (seed 000's
// skills_selection_mode).
type Mode string

// Modes. The zero Mode is ModeAll.
const (
	ModeAll      Mode = "all"
	ModeSelected Mode = "selected"
	ModeNone     Mode = "none"
)

// Selection chooses the skills offered among those found. The zero value
// offers all.
type Selection struct {
	Mode Mode
	// Names are the skills offered in ModeSelected (seed 000's
	// selected_skills); ignored otherwise.
	Names []string
}

// ParseSelection reads the configuration's selection: mode "" is all;
// names must be valid skill names, and are only allowed with "selected".
func ParseSelection(mode string, names []string) (Selection, error) {
	sel := Selection{Mode: Mode(mode)}
	switch sel.Mode {
	case "":
		sel.Mode = ModeAll
	case ModeAll, ModeNone, ModeSelected:
	default:
		return Selection{}, fmt.Errorf("skills selection %q: want all, selected or none", mode)
	}
	if len(names) > 0 && sel.Mode != ModeSelected {
		return Selection{}, fmt.Errorf("skills selection %q names skills (%v): names go with selection \"selected\"", sel.Mode, names)
	}
	for _, n := range names {
		if err := CheckName(n); err != nil {
			return Selection{}, fmt.Errorf("skills selected: %w", err)
		}
	}
	sel.Names = slices.Clone(names)
	return sel, nil
}

// offers reports whether the selection offers the skill name.
func (sel Selection) offers(name string) bool {
	switch sel.Mode {
	case ModeNone:
		return false
	case ModeSelected:
		return slices.Contains(sel.Names, name)
	}
	return true
}
