// Package orgpolicy reads the organisation's managed policy file: the rules
// an administrator sets for every user of a machine, which user and project
// configuration cannot loosen.
//
// The file is $MOTEUR_POLICY, default /etc/moteur/policy.yaml:
//
//	allowed_hosts: [api.mistral.ai, "*.corp.example", 127.0.0.1]  # providers may only be these
//	denied_tools: [shell_exec, "mcp_*"]                            # never run, whatever the rules say
//	profile: restricted                                            # forced
//	min_mode: confirm                                              # the access mode can be this or stricter
//	key_file: /etc/moteur/keys/%u.key                               # the at-rest key (audit chain, checkpoints)
//
// Every key is optional. Reading fails closed: a policy that exists but cannot
// be read or understood is an error, and the caller refuses to start, since
// running without the rules an administrator meant to impose is worse than
// not running. Only the default path being absent means "no policy".
//
// Applying the policy is package config's business (it is where the layers
// meet); this package only reads and validates the file.
package orgpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/strictyaml"
)

// DefaultPath is where the policy is read when $MOTEUR_POLICY is not set.
const DefaultPath = "/etc/moteur/policy.yaml"

// EnvVar names the variable that points at another policy file.
const EnvVar = "MOTEUR_POLICY"

// Policy is a parsed, validated organisation policy.
type Policy struct {
	// Path is the file it was read from, for messages ("not allowed by the
	// organisation policy /etc/moteur/policy.yaml").
	Path string
	// AllowedHosts are the only hosts providers may use; an empty list (the
	// key absent) restricts nothing. An explicitly empty list in the file is
	// an error rather than "nothing allowed": consumers read an empty List
	// as "no restriction", so the file must not be able to say it by
	// accident.
	AllowedHosts hostmatch.List
	// DeniedTools are tool names, "*" and "?" globs allowed ("mcp_*"), that
	// never run; config adds each as a deny rule.
	DeniedTools []string
	// Profile is the forced profile; "" when the policy forces none.
	Profile profile.Name
	// MinMode is the loosest access mode allowed; "" when none.
	MinMode policy.Mode
	// KeyFile is where the at-rest key is kept (package atrest), an
	// absolute path in which %u stands for the user's name; "" leaves it
	// in the user's configuration directory.
	KeyFile string
}

// file is the policy as written.
type file struct {
	AllowedHosts *[]string `yaml:"allowed_hosts"` // pointer: absent and empty differ
	DeniedTools  []string  `yaml:"denied_tools"`
	Profile      string    `yaml:"profile"`
	MinMode      string    `yaml:"min_mode"`
	KeyFile      string    `yaml:"key_file"`
}

// PathFromEnv returns the policy path: $MOTEUR_POLICY when set (explicit),
// else DefaultPath.
func PathFromEnv(getenv func(string) string) (path string, explicit bool) {
	if p := getenv(EnvVar); p != "" {
		return p, true
	}
	return DefaultPath, false
}

// Load reads the policy at path. explicit says whether the path came from
// $MOTEUR_POLICY. Only a missing file at the default path returns (nil, nil):
// no policy. A missing explicit path is an error, since someone asked for a
// policy that is not there. Anything else that goes wrong — permission
// denied, a directory, a dangling link, malformed YAML, an unknown key, a bad
// host, an unknown profile or mode — is an error naming the file and why.
func Load(path string, explicit bool) (*Policy, error) {
	where := path
	if explicit {
		where = path + " (from $" + EnvVar + ")"
	}
	fail := func(err error) (*Policy, error) {
		return nil, fmt.Errorf("organisation policy %s: %w", where, err)
	}
	if path == "" {
		return fail(errors.New("empty path"))
	}
	// Lstat, not Stat: a link at the default path that leads nowhere is a
	// broken policy, not an absent one.
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	data, err := strictyaml.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	var raw file
	f, err := strictyaml.Decode(data, &raw)
	if err != nil {
		return fail(err)
	}
	p := &Policy{Path: path}

	if raw.AllowedHosts != nil {
		if len(*raw.AllowedHosts) == 0 {
			return fail(&strictyaml.Error{Line: strictyaml.LineOf(f, "$.allowed_hosts"),
				Msg: "allowed_hosts is empty: list the hosts providers may use, or remove the key"})
		}
		for i, h := range *raw.AllowedHosts {
			if _, err := hostmatch.Parse([]string{h}); err != nil {
				return fail(&strictyaml.Error{Line: strictyaml.LineOf(f, fmt.Sprintf("$.allowed_hosts[%d]", i)),
					Msg: "allowed_hosts: " + err.Error(), Err: err})
			}
		}
		if p.AllowedHosts, err = hostmatch.Parse(*raw.AllowedHosts); err != nil {
			return fail(err)
		}
	}

	for i, t := range raw.DeniedTools {
		if err := checkToolName(t); err != nil {
			return fail(&strictyaml.Error{Line: strictyaml.LineOf(f, fmt.Sprintf("$.denied_tools[%d]", i)),
				Msg: "denied_tools: " + err.Error(), Err: err})
		}
		p.DeniedTools = append(p.DeniedTools, strings.TrimSpace(t))
	}

	if strings.TrimSpace(raw.Profile) != "" {
		if p.Profile, err = profile.Parse(raw.Profile); err != nil {
			return fail(&strictyaml.Error{Line: strictyaml.LineOf(f, "$.profile"), Msg: "profile: " + err.Error(), Err: err})
		}
	}
	if strings.TrimSpace(raw.MinMode) != "" {
		if p.MinMode, err = policy.ParseMode(strings.TrimSpace(raw.MinMode)); err != nil {
			return fail(&strictyaml.Error{Line: strictyaml.LineOf(f, "$.min_mode"), Msg: "min_mode: " + err.Error(), Err: err})
		}
	}
	if k := strings.TrimSpace(raw.KeyFile); k != "" {
		if !strings.HasPrefix(k, "/") {
			return fail(&strictyaml.Error{Line: strictyaml.LineOf(f, "$.key_file"),
				Msg: "key_file must be an absolute path, not " + k})
		}
		p.KeyFile = k
	}
	return p, nil
}

// checkToolName accepts a tool name or a glob over names ("mcp_*"), as
// policy.NewPermissions reads denied tools. Rules with an argument pattern
// ("shell_exec(rm *)") are refused: the key denies whole tools, and a
// half-understood rule must not pass for a denial.
func checkToolName(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty tool name")
	}
	_, err := policy.NewPermissions(policy.PermissionsConfig{DeniedTools: []string{s}})
	var re *policy.RuleError
	if errors.As(err, &re) {
		return re.Err
	}
	return err
}
