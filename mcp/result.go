package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// maxStructured bounds the structured content a result shows, in runes,
// before the registry's own limit on the whole result.
const maxStructured = 16000

// converter turns what a server returned into what the model reads.
type converter struct {
	blobs         effect.Blobs
	maxAttachment int64
	sawLink       func() // a result linked to a resource
}

// result renders a tool's result: text as it is, structured content as
// indented JSON unless a text block already says the same, embedded
// resources (text shown, binary described), resource links listed with
// how to read them, images and audio kept as attachments and described.
// isError makes an error result the model sees.
func (c converter) result(ctx context.Context, server, tool string, r *mcpsdk.CallToolResult) tools.Result {
	var out tools.Result
	if r == nil {
		return tools.Result{Content: fmt.Sprintf("The MCP tool %q of server %q returned no result.", tool, server), IsError: true}
	}
	var parts []string
	for _, content := range r.Content {
		parts = append(parts, c.content(ctx, server, content, &out))
	}
	if r.StructuredContent != nil && !saidInText(r.StructuredContent, r.Content) {
		parts = append(parts, "Structured content:\n"+structuredText(r.StructuredContent))
	}
	text := strings.Join(nonEmptyParts(parts), "\n\n")
	if r.IsError {
		out.IsError = true
		if text == "" {
			text = "(no message)"
		}
		text = fmt.Sprintf("The MCP tool %q of server %q reported an error:\n%s", tool, server, text)
	} else if text == "" {
		text = "(the tool returned no content)"
	}
	out.Content = text
	return out
}

func (c converter) content(ctx context.Context, server string, content mcpsdk.Content, out *tools.Result) string {
	switch v := content.(type) {
	case *mcpsdk.TextContent:
		return v.Text
	case *mcpsdk.ImageContent:
		return c.media(ctx, "image", v.MIMEType, v.Data, "", out)
	case *mcpsdk.AudioContent:
		return c.media(ctx, "audio", v.MIMEType, v.Data, "", out)
	case *mcpsdk.EmbeddedResource:
		return c.resource(ctx, v.Resource, out)
	case *mcpsdk.ResourceLink:
		if c.sawLink != nil {
			c.sawLink()
		}
		return resourceLink(server, v)
	case nil:
		return ""
	}
	return fmt.Sprintf("[content of type %T not shown]", content)
}

// resource renders an embedded resource: its text, or a description of
// its bytes (kept as an attachment when they are an image or audio).
func (c converter) resource(ctx context.Context, r *mcpsdk.ResourceContents, out *tools.Result) string {
	if r == nil {
		return ""
	}
	head := "[resource " + r.URI
	if r.MIMEType != "" {
		head += " (" + r.MIMEType + ")"
	}
	if r.Blob == nil {
		return head + "]\n" + r.Text
	}
	if kind, ok := mediaKind(r.MIMEType); ok {
		return c.media(ctx, kind, r.MIMEType, r.Blob, r.URI, out)
	}
	return fmt.Sprintf("%s: %s of binary data, sha256 %s]", head, byteSize(len(r.Blob)), shortSum(r.Blob))
}

// media keeps an image or an audio clip in the blobs, with its MIME type,
// and describes it, since models do not see them yet.
func (c converter) media(ctx context.Context, kind, mime string, data []byte, name string, out *tools.Result) string {
	if mime == "" {
		mime = "application/octet-stream"
	}
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	desc := fmt.Sprintf("[%s %s, %s, sha256 %s", kind, mime, byteSize(len(data)), hexSum[:12])
	if name != "" {
		desc += ", from " + name
	}
	switch {
	case c.blobs == nil:
		desc += "; not kept"
	case int64(len(data)) > c.maxAttachment:
		desc += fmt.Sprintf("; not kept: larger than %s", byteSize(int(c.maxAttachment)))
	default:
		if _, err := c.blobs.Put(ctx, data); err != nil {
			desc += "; not kept: " + err.Error()
			break
		}
		out.Attachments = append(out.Attachments, effect.Attachment{MIME: mime, SHA256: hexSum, Size: int64(len(data)), Name: name})
	}
	return desc + "]"
}

func mediaKind(mime string) (string, bool) {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image", true
	case strings.HasPrefix(mime, "audio/"):
		return "audio", true
	}
	return "", false
}

// resourceLink lists a link with how to read it.
func resourceLink(server string, l *mcpsdk.ResourceLink) string {
	var b strings.Builder
	b.WriteString("[resource link " + l.URI)
	var meta []string
	for _, s := range []string{l.Title, l.Name, l.MIMEType} {
		if s != "" && !slices.Contains(meta, s) {
			meta = append(meta, s)
		}
	}
	if l.Size != nil {
		meta = append(meta, byteSize(int(*l.Size)))
	}
	if len(meta) > 0 {
		b.WriteString(" (" + strings.Join(meta, ", ") + ")")
	}
	if l.Description != "" {
		b.WriteString(": " + l.Description)
	}
	args, _ := json.Marshal(map[string]string{"server": server, "uri": l.URI})
	fmt.Fprintf(&b, "; read it with %s %s]", resourceToolName, args)
	return b.String()
}

// saidInText: servers that return structured content usually repeat it as
// JSON text (the specification asks them to); it is shown once.
func saidInText(v any, content []mcpsdk.Content) bool {
	want, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var wantV any
	if json.Unmarshal(want, &wantV) != nil {
		return false
	}
	for _, c := range content {
		t, ok := c.(*mcpsdk.TextContent)
		if !ok {
			continue
		}
		var got any
		if json.Unmarshal([]byte(t.Text), &got) == nil && reflect.DeepEqual(got, wantV) {
			return true
		}
	}
	return false
}

// structuredText is v as indented JSON, bounded.
func structuredText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(not JSON: %v)", err)
	}
	var b bytes.Buffer
	s := string(raw)
	if json.Indent(&b, raw, "", "  ") == nil {
		s = b.String()
	}
	s, _ = tools.Truncate(s, maxStructured)
	return s
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func shortSum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

func nonEmptyParts(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
