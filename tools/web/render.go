package web

import (
	"fmt"
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/tools"
)

// renderFetch writes the pages for the model, each in a <page> element
// whose attributes say its status, its id and how to go on.
func renderFetch(results []*pageResult) tools.Result {
	counts := map[string]int{}
	var body strings.Builder
	var refs []cite.Ref
	var more []string
	for _, r := range results {
		counts[r.status]++
		if r.status != "success" {
			fmt.Fprintf(&body, "\n<page url=%q status=%q code=%q retry=\"%t\">%s</page>\n",
				r.item.URL, r.status, r.err.Code, r.err.Retryable, r.err.Msg)
			continue
		}
		refs = append(refs, r.ref)
		text := []rune(r.snap.Text)
		from := min(r.item.Offset, len(text))
		to := min(from+r.item.Limit, len(text))
		fmt.Fprintf(&body, "\n<page id=%q url=%q status=\"success\"", r.ref.Alias, r.url.String())
		if r.snap.FinalURL != "" && r.snap.FinalURL != r.url.String() {
			fmt.Fprintf(&body, " final_url=%q", r.snap.FinalURL)
		}
		if r.snap.Title != "" {
			fmt.Fprintf(&body, " title=%q", oneLine(r.snap.Title))
		}
		fmt.Fprintf(&body, " format=%q offset=\"%d\" chars=\"%d\" total_chars=\"%d\"", r.snap.Format, from, to-from, len(text))
		if to < len(text) {
			fmt.Fprintf(&body, " next_offset=\"%d\"", to)
			more = append(more, fmt.Sprintf("{url:%q, offset:%d}", r.ref.Alias, to))
		}
		if r.snap.Path != "" {
			fmt.Fprintf(&body, " snapshot=%q", r.snap.Path)
		}
		if r.snap.Truncated {
			body.WriteString(` truncated="body cut at the size cap"`)
		}
		fmt.Fprintf(&body, ">\n%s\n</page>\n", string(text[from:to]))
	}
	var head strings.Builder
	fmt.Fprintf(&head, "web_fetch: %d page(s): %d success, %d failed, %d skipped.\n",
		len(results), counts["success"], counts["failed"], counts["skipped"])
	out := head.String() + body.String()
	if len(more) > 0 {
		out += "\nTo go on: web_fetch(items=[" + strings.Join(more, ", ") + "]), or read_file on a snapshot path for the whole text.\n"
	}
	return tools.Result{Content: out, Display: "web_fetch", References: refs, IsError: counts["success"] == 0}
}

// oneLine collapses white space, for an attribute.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
