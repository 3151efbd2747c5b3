package agentconfig

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/strictyaml"
)

// builtinFS holds the presets and built-in agents: one YAML file each,
// decoded strictly (an unknown key is an error, so a typo cannot silently
// drop a setting). Built-in agents are listed in file-name order.
//
//go:embed builtin/presets/*.yaml builtin/agents/*.yaml
var builtinFS embed.FS

// Text is a string in French and English.
type Text struct {
	FR string `yaml:"fr" json:"fr"`
	EN string `yaml:"en" json:"en"`
}

// In returns the text in l (French by default).
func (t Text) In(l i18n.Lang) string {
	if l.Normalize() == i18n.EN {
		return t.EN
	}
	return t.FR
}

// KBFilter says which knowledge bases suit a preset, by capability
// (vector, keyword, faq…): a base qualifies when it has one of AnyOf (or
// AnyOf is empty) and none of NoneOf.
type KBFilter struct {
	AnyOf  []string `yaml:"any_of,omitempty" json:"any_of,omitempty"`
	NoneOf []string `yaml:"none_of,omitempty" json:"none_of,omitempty"`
}

// Preset is a type preset: what it prefills in a smart-reasoning agent's
// editor. Nil pointers and a nil AllowedTools leave the field alone.
type Preset struct {
	ID                 string   `yaml:"id" json:"id"`
	Name               string   `yaml:"-" json:"name"`
	Description        string   `yaml:"-" json:"description"`
	SystemPromptID     string   `yaml:"system_prompt_id,omitempty" json:"system_prompt_id,omitempty"`
	Temperature        *float64 `yaml:"temperature,omitempty" json:"temperature,omitempty"`
	MaxIterations      int      `yaml:"max_iterations,omitempty" json:"max_iterations,omitempty"`
	AllowedTools       []string `yaml:"allowed_tools" json:"allowed_tools"`
	WebSearchEnabled   *bool    `yaml:"web_search_enabled,omitempty" json:"web_search_enabled,omitempty"`
	SupportedFileTypes []string `yaml:"supported_file_types,omitempty" json:"supported_file_types,omitempty"`
	KBFilter           KBFilter `yaml:"kb_filter,omitempty" json:"kb_filter"`
}

// Apply prefills c from the preset; the user may change everything after.
func (p Preset) Apply(c *CustomAgentConfig) {
	c.AgentMode = ModeSmartReasoning
	c.AgentType = p.ID
	if p.SystemPromptID != "" {
		c.SystemPromptID = p.SystemPromptID
	}
	if p.Temperature != nil {
		c.Temperature = *p.Temperature
	}
	if p.MaxIterations != 0 {
		c.MaxIterations = p.MaxIterations
	}
	if p.AllowedTools != nil {
		c.AllowedTools = cloneList(p.AllowedTools)
	}
	if p.WebSearchEnabled != nil {
		c.WebSearchEnabled = *p.WebSearchEnabled
	}
	if p.SupportedFileTypes != nil {
		c.SupportedFileTypes = cloneList(p.SupportedFileTypes)
	}
}

// Agent is a named agent: a built-in one here, a stored one elsewhere.
type Agent struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Builtin     bool              `json:"builtin"`
	Config      CustomAgentConfig `json:"config"`
	// Created and Updated are a stored agent's times (zero for a built-in).
	Created time.Time `json:"created,omitzero"`
	Updated time.Time `json:"updated,omitzero"`
}

// presetFile and agentFile are the YAML files' shapes.
type presetFile struct {
	Preset      `yaml:",inline"`
	NameText    Text `yaml:"name"`
	Description Text `yaml:"description"`
}

type agentFile struct {
	ID          string            `yaml:"id"`
	Name        Text              `yaml:"name"`
	Description Text              `yaml:"description"`
	Config      CustomAgentConfig `yaml:"config"`
}

type catalog struct {
	presets []presetFile
	agents  []agentFile
}

var (
	loadOnce  sync.Once
	loaded    catalog
	errLoaded error
)

// load decodes the embedded files once. They are part of the binary, so
// an error is a build defect; the tests decode every file.
func load() (catalog, error) {
	loadOnce.Do(func() { loaded, errLoaded = decodeCatalog(builtinFS) })
	return loaded, errLoaded
}

func decodeCatalog(fsys fs.FS) (catalog, error) {
	var c catalog
	seen := map[string]string{} // "dir id" → file: presets and agents are apart
	unique := func(name, id string) error {
		key := path.Dir(name) + " " + id
		if first, ok := seen[key]; ok {
			return fmt.Errorf("agentconfig: %s: id %q already used by %s", name, id, first)
		}
		seen[key] = name
		return nil
	}
	err := eachFile(fsys, "builtin/presets", func(name string, data []byte) error {
		var p presetFile
		if err := decodeStrict(name, data, &p); err != nil {
			return err
		}
		if err := checkEntry(name, p.ID, p.NameText, p.Description); err != nil {
			return err
		}
		if err := unique(name, p.ID); err != nil {
			return err
		}
		c.presets = append(c.presets, p)
		return nil
	})
	if err != nil {
		return catalog{}, err
	}
	err = eachFile(fsys, "builtin/agents", func(name string, data []byte) error {
		var a agentFile
		if err := decodeStrict(name, data, &a); err != nil {
			return err
		}
		if err := checkEntry(name, a.ID, a.Name, a.Description); err != nil {
			return err
		}
		if err := unique(name, a.ID); err != nil {
			return err
		}
		cfg := a.Config.Clone()
		cfg.EnsureDefaults()
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		c.agents = append(c.agents, a)
		return nil
	})
	if err != nil {
		return catalog{}, err
	}
	return c, nil
}

func eachFile(fsys fs.FS, dir string, f func(name string, data []byte) error) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return fmt.Errorf("agentconfig: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("agentconfig: %w", err)
		}
		if err := f(name, data); err != nil {
			return err
		}
	}
	return nil
}

func decodeStrict(name string, data []byte, v any) error {
	if _, err := strictyaml.Decode(data, v); err != nil {
		return fmt.Errorf("agentconfig: %s: %w", name, err)
	}
	return nil
}

func checkEntry(name, id string, n, d Text) error {
	switch {
	case id == "":
		return fmt.Errorf("agentconfig: %s: id: required", name)
	case n.FR == "" || n.EN == "":
		return fmt.Errorf("agentconfig: %s: name: both fr and en are required", name)
	case d.FR == "" || d.EN == "":
		return fmt.Errorf("agentconfig: %s: description: both fr and en are required", name)
	}
	return nil
}
