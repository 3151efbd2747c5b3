package web

import (
	"context"
	"encoding/json"
)

// ResolveAliases implements tools.AliasResolver: the permission check
// judges a fetch of w3 as a fetch of the URL w3 stands for, so that a rule
// such as web_fetch(domain:example.org) holds whichever name the model gave
// the page. Arguments it cannot read are returned as they are: the policy
// then judges them as written and fails closed on what it cannot read.
func (t *fetchTool) ResolveAliases(ctx context.Context, raw json.RawMessage) json.RawMessage {
	var a struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return raw
	}
	tab := t.s.ids.table(ctx)
	changed := false
	for _, it := range a.Items {
		var u string
		if json.Unmarshal(it["url"], &u) != nil {
			continue
		}
		if r, ok := tab.resolve(u); ok {
			it["url"], _ = json.Marshal(r.ID)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(a)
	if err != nil {
		return raw
	}
	return out
}
