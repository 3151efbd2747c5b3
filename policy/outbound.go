package policy

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/llm"
)

// ErrRefused is wrapped by every refusal of Outbound.Check.
var ErrRefused = errors.New("outbound send refused")

// OutboundConfig says what may leave the machine. Zero values refuse
// nothing but classified content.
type OutboundConfig struct {
	// OrgHosts are the organisation policy's allowed hosts; an empty list
	// restricts nothing.
	OrgHosts hostmatch.List
	// OrgPath names the policy file in refusals.
	OrgPath string
	// Allowlists are the configured provider allowlists (global, project):
	// a non-empty one must hold the destination.
	Allowlists []hostmatch.List
	// RequireAllowlist refuses remote destinations that no allowlist holds,
	// even when every allowlist is empty (profile restricted).
	RequireAllowlist bool
	// LocalOnly refuses every remote destination (profile airgapped).
	LocalOnly bool
	// Classifier finds markings; nil uses the built-in markings alone.
	Classifier *classify.Classifier
}

// Outbound is the check made before every send to a provider: where the
// request goes, and whether what it carries may go there. It is safe for
// concurrent use.
type Outbound struct {
	cfg OutboundConfig
}

// NewOutbound returns the check for cfg.
func NewOutbound(cfg OutboundConfig) (*Outbound, error) {
	if cfg.Classifier == nil {
		c, err := classify.New(classify.Rules{})
		if err != nil {
			return nil, fmt.Errorf("outbound: %w", err)
		}
		cfg.Classifier = c
	}
	return &Outbound{cfg: cfg}, nil
}

// Destination is where a request would go.
type Destination struct {
	Provider string
	// Endpoint is the URL or host the provider sends to; empty for a
	// provider that runs in the process and sends nothing.
	Endpoint string
	// Local: the provider runs on this machine or network and may receive
	// classified content.
	Local bool
}

// Refusal says which rule refused a send and why.
type Refusal struct {
	Rule   string
	Reason string
}

func (r *Refusal) Error() string { return fmt.Sprintf("refused by %s: %s", r.Rule, r.Reason) }

// Unwrap makes every refusal match ErrRefused.
func (r *Refusal) Unwrap() error { return ErrRefused }

// Check returns nil when msgs may be sent to dst, or a *Refusal. Messages
// marked Remote (produced by a remote provider) are not checked for
// markings: they came from outside already.
func (o *Outbound) Check(dst Destination, msgs []llm.Message) error {
	if err := o.checkHost(dst); err != nil {
		return err
	}
	if dst.Local {
		return nil
	}
	for i, m := range msgs {
		if m.Remote {
			continue
		}
		if match, ok := o.classified(m); ok {
			return &Refusal{Rule: "classification (" + match.Rule + ")",
				Reason: fmt.Sprintf("message %d (%s) carries %q, which may only go to a local provider, and %s is not local",
					i, m.Role, match.Marking, dst.Provider)}
		}
	}
	return nil
}

// Classify reports the first marking in s.
func (o *Outbound) Classify(s string) (classify.Match, bool) { return o.cfg.Classifier.Text(s) }

func (o *Outbound) classified(m llm.Message) (classify.Match, bool) {
	if match, ok := o.cfg.Classifier.Text(m.Content); ok {
		return match, true
	}
	for _, c := range m.ToolCalls {
		if match, ok := o.cfg.Classifier.Text(c.Arguments); ok {
			return match, true
		}
	}
	return classify.Match{}, false
}

func (o *Outbound) checkHost(dst Destination) error {
	if dst.Endpoint == "" {
		return nil // in-process: nothing leaves
	}
	host := hostOf(dst.Endpoint)
	if !o.cfg.OrgHosts.Empty() && !o.cfg.OrgHosts.Allows(dst.Endpoint) {
		return &Refusal{Rule: "organisation policy " + o.cfg.OrgPath,
			Reason: fmt.Sprintf("%s (%s) is not among its allowed_hosts", dst.Provider, host)}
	}
	if o.cfg.LocalOnly && !dst.Local {
		return &Refusal{Rule: "profile airgapped", Reason: fmt.Sprintf("%s (%s) is not a local provider", dst.Provider, host)}
	}
	listed := false
	for _, l := range o.cfg.Allowlists {
		if l.Empty() {
			continue
		}
		if !l.Allows(dst.Endpoint) {
			return &Refusal{Rule: "allowlist", Reason: fmt.Sprintf("%s (%s) is not in the allowlist [%s]",
				dst.Provider, host, strings.Join(l.Entries(), ", "))}
		}
		listed = true
	}
	if o.cfg.RequireAllowlist && !listed && !dst.Local {
		return &Refusal{Rule: "profile restricted", Reason: fmt.Sprintf("%s (%s) is remote and no allowlist names it", dst.Provider, host)}
	}
	return nil
}

// hostOf is the host of an endpoint URL, or the endpoint itself.
func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Hostname()
	}
	return endpoint
}
