package tools

import (
	"context"
	"encoding/json"
)

// AliasResolver is implemented by tools whose arguments may name what an
// earlier result showed under a session alias (web_fetch takes w3 for the
// URL of a search result). The permission check judges the call on what
// the aliases stand for, so that a rule on a domain cannot be passed by
// naming its page by alias. ctx carries the session's cite.Table.
type AliasResolver interface {
	// ResolveAliases returns args with each alias it knows replaced by
	// what it stands for; unknown ones are left as they are (the call
	// will fail on them).
	ResolveAliases(ctx context.Context, args json.RawMessage) json.RawMessage
}
