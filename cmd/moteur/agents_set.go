package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/strictyaml"
)

// agentFile is what --file holds: an agent as moteur agents show --json
// prints it (id, builtin, created and updated are accepted and ignored:
// the agent created or edited decides them), in JSON or YAML.
type agentFile struct {
	ID          string                        `json:"id" yaml:"id"`
	Name        *string                       `json:"name" yaml:"name"`
	Description *string                       `json:"description" yaml:"description"`
	Builtin     bool                          `json:"builtin" yaml:"builtin"`
	Config      agentconfig.CustomAgentConfig `json:"config" yaml:"config"`
	Created     time.Time                     `json:"created" yaml:"created"`
	Updated     time.Time                     `json:"updated" yaml:"updated"`
}

// readAgentFile decodes path strictly (an unknown key is an error naming
// it) over a: the keys the file has replace a's, the others are kept.
func readAgentFile(l i18n.Lang, path string, a *agentconfig.Agent) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".json" && ext != ".yaml" && ext != ".yml" {
		return usageErrorf(i18n.Tr(l, "--file %s: want a .json, .yaml or .yml file"), path)
	}
	data, err := strictyaml.ReadFile(path)
	if err != nil {
		return usageErrorf("--file: %v", err)
	}
	f := agentFile{Config: a.Config.Clone()}
	switch ext {
	case ".json":
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return usageErrorf("--file %s: %v", path, err)
		}
		if dec.More() {
			return usageErrorf(i18n.Tr(l, "--file %s: more than one JSON value"), path)
		}
	default:
		if _, err := strictyaml.Decode(data, &f); err != nil {
			return usageErrorf("--file %s: %v", path, err)
		}
	}
	if f.Name != nil {
		a.Name = *f.Name
	}
	if f.Description != nil {
		a.Description = *f.Description
	}
	a.Config = f.Config
	return nil
}

// configFields maps the wire names of CustomAgentConfig's fields to their
// index, for --set.
var configFields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[agentconfig.CustomAgentConfig]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}()

// settableKeys lists what --set accepts, sorted.
func settableKeys() []string {
	keys := []string{"name", "description"}
	for k := range configFields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// applySet applies one --set key=value to a. Lists are comma-separated
// ("" is the empty list); "null" unsets a list or a yes/no that may be
// unset (allowed_tools=null is the default tools, allowed_tools= none).
func applySet(l i18n.Lang, a *agentconfig.Agent, kv string) (key string, err error) {
	key, value, ok := strings.Cut(kv, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return "", usageErrorf(i18n.Tr(l, "--set %q: want key=value"), kv)
	}
	switch key {
	case "name":
		a.Name = value
		return key, nil
	case "description":
		a.Description = value
		return key, nil
	}
	i, ok := configFields[key]
	if !ok {
		return "", usageErrorf(i18n.Tr(l, "--set: unknown key %q; keys: %s"), key, strings.Join(settableKeys(), ", "))
	}
	f := reflect.ValueOf(&a.Config).Elem().Field(i)
	if err := setValue(l, f, value); err != nil {
		return "", usageErrorf("--set %s: %v", key, err)
	}
	return key, nil
}

func setValue(l i18n.Lang, f reflect.Value, value string) error {
	v := strings.TrimSpace(value)
	switch f.Kind() {
	case reflect.String:
		f.SetString(value)
	case reflect.Int:
		n, err := strconv.Atoi(v)
		if err != nil {
			return errors.New(i18n.Trf(l, "%q is not a whole number", v))
		}
		f.SetInt(int64(n))
	case reflect.Float64:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return errors.New(i18n.Trf(l, "%q is not a number", v))
		}
		f.SetFloat(x)
	case reflect.Bool:
		b, err := parseYesNo(l, v)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Pointer: // *bool: null unsets
		if v == "null" {
			f.SetZero()
			return nil
		}
		b, err := parseYesNo(l, v)
		if err != nil {
			return err
		}
		f.Set(reflect.ValueOf(&b))
	case reflect.Slice:
		f.Set(reflect.ValueOf(parseList(v)))
	default:
		return errors.New(i18n.Tr(l, "cannot be set from the command line"))
	}
	return nil
}

func parseYesNo(l i18n.Lang, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, errors.New(i18n.Trf(l, "%q is not true or false", v))
}

// parseList reads "a,b" as a list, "" as the empty list and "null" as no
// list.
func parseList(v string) []string {
	switch v {
	case "null":
		return nil
	case "":
		return []string{}
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}
