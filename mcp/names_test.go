package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func hash8(server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:])[:8]
}

func TestToolNames(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp_github_create_issue"},
		{"github", "list.repos", "mcp_github_list_repos"},
		{"my-server", "get tiny/image", "mcp_my-server_get_tiny_image"},
		{"s", "日本", "mcp_s___"},
		{"github", long, ("mcp_github_" + long)[:55] + "_" + hash8("github", long)},
	} {
		got := ToolName(c.server, c.tool)
		if got != c.want || !validName.MatchString(got) {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

func TestCollidingNamesBothTakeAStableHash(t *testing.T) {
	keys := []toolKey{{"a", "x.y"}, {"a", "x_y"}, {"a", "other"}}
	names, dropped := assignNames(keys)
	if len(dropped) != 0 {
		t.Fatalf("dropped %v", dropped)
	}
	want := map[toolKey]string{
		{"a", "x.y"}:   "mcp_a_x_y_" + hash8("a", "x.y"),
		{"a", "x_y"}:   "mcp_a_x_y_" + hash8("a", "x_y"),
		{"a", "other"}: "mcp_a_other",
	}
	for k, w := range want {
		if names[k] != w {
			t.Errorf("%v: %q, want %q", k, names[k], w)
		}
	}
	// Same names whatever the order the servers listed them in.
	slices.Reverse(keys)
	again, _ := assignNames(keys)
	for k, w := range want {
		if again[k] != w {
			t.Errorf("reordered: %v: %q, want %q", k, again[k], w)
		}
	}
}

func TestCraftedNameCannotTakeAHashedName(t *testing.T) {
	// A tool named to be another's hashed name: the hashed ones take the
	// longer hash, the crafted one keeps its own name.
	crafted := toolKey{"s", "t_u_" + hash8("s", "t.u")}
	keys := []toolKey{{"s", "t.u"}, {"s", "t_u"}, crafted}
	names, dropped := assignNames(keys)
	if len(dropped) != 0 {
		t.Fatalf("dropped %v", dropped)
	}
	if names[crafted] != "mcp_s_t_u_"+hash8("s", "t.u") {
		t.Errorf("crafted = %q", names[crafted])
	}
	if n := names[toolKey{"s", "t.u"}]; len(n) != len("mcp_s_t_u_")+16 {
		t.Errorf("hashed = %q, want a 16-digit hash", n)
	}
	unique(t, names)
}

func unique(t *testing.T, names map[toolKey]string) {
	t.Helper()
	seen := map[string]toolKey{}
	for k, n := range names {
		if !validName.MatchString(n) {
			t.Errorf("%v: invalid name %q", k, n)
		}
		if o, ok := seen[n]; ok {
			t.Errorf("%v and %v share %q", k, o, n)
		}
		seen[n] = k
	}
}

func FuzzAssignNames(f *testing.F) {
	f.Add("github", "create_issue", "github", "create.issue", "x")
	f.Add("s", "日本", "s", "中国", strings.Repeat("z", 80))
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, t3 string) {
		var keys []toolKey
		for _, k := range []toolKey{{s1, t1}, {s2, t2}, {s1, t3}, {s2, t3}} {
			if k.tool != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		names, dropped := assignNames(keys)
		if len(names)+len(dropped) != len(keys) {
			t.Fatalf("%d names, %d dropped for %d keys", len(names), len(dropped), len(keys))
		}
		unique(t, names)
	})
}
