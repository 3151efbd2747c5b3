package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/mcp/serve"
)

type mcpServeFlags struct {
	bases           []string
	http            string
	serveClassified bool
	mode            string
}

func (c *cli) mcpServeCmd(g *globalFlags) *cobra.Command {
	f := &mcpServeFlags{}
	cmd := &cobra.Command{
		Use:   "serve [--kb NAME]... [--http ADDR] [--serve-classified]",
		Short: c.tr("Serve the knowledge bases to MCP clients (Claude Code, Codex…), read-only"),
		// The path is serve.Path, written out so that the text is one key of
		// the catalogue (a test checks that they agree).
		Long: c.tr("Serve the knowledge bases as an MCP server, over standard input and output (the default: the client\n" +
			"starts moteur mcp serve) or streamable HTTP (--http ADDR, at http://ADDR/mcp). Clients get the\n" +
			"tools search_knowledge, read_document, list_documents and ask (the quick answer of moteur ask: with no\n" +
			"model configured, it quotes the passages), each result with its citations. Nothing that writes is served.\n\n" +
			"Passages of classified documents (a classify: path rule, or a marking in the document) are withheld,\n" +
			"since Moteur cannot know where a client sends them; each result says which document and which rule.\n" +
			"--serve-classified serves them anyway: only for a client you trust with them.\n\n" +
			"--http :PORT listens on 127.0.0.1 only; give a host (0.0.0.0:PORT) to listen on other interfaces,\n" +
			"which serves the bases to anyone who can reach the port: there is no authentication."),
		// Command lines, but claude's reads as prose to the check: its
		// French is the same.
		Example: c.tr("  moteur mcp serve --kb docs\n" +
			"  claude mcp add moteur -- moteur mcp serve --kb docs\n" +
			"  moteur mcp serve --http :8765"),
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.mcpServe(cmd.Context(), g, f) },
	}
	cmd.Flags().StringSliceVar(&f.bases, "kb", nil, c.tr("knowledge bases to serve (repeat or separate with commas; default all)"))
	cmd.Flags().StringVar(&f.http, "http", "", c.tr("serve streamable HTTP on ADDR (HOST:PORT; :PORT is 127.0.0.1) instead of stdio"))
	cmd.Flags().BoolVar(&f.serveClassified, "serve-classified", false, c.tr("serve passages of classified documents instead of withholding them"))
	cmd.Flags().StringVar(&f.mode, "mode", "hybrid", c.tr("search mode of ask: hybrid, semantic or keyword"))
	return cmd
}

func (c *cli) mcpServe(ctx context.Context, g *globalFlags, f *mcpServeFlags) error {
	mode, err := kb.ParseMode(f.mode)
	if err != nil {
		return usageErrorf("--mode: %v", err)
	}
	var addr string
	var loopback bool
	if f.http != "" {
		if addr, loopback, err = serve.ListenAddr(f.http); err != nil {
			return usageErrorf("%v", err)
		}
	}
	o, err := c.options(g)
	if err != nil {
		return err
	}
	o.KnowledgeBases, o.SearchMode, o.NoModel, o.NoMCP = f.bases, mode, true, true
	st, err := c.settings(o)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv, err := st.OpenMCPServer(ctx, app.MCPServeConfig{ServeClassified: f.serveClassified,
		Version: currentVersion().Version, Logger: log})
	if err != nil {
		return appError(err)
	}
	defer srv.Close()
	if f.serveClassified {
		c.warn([]string{c.tr("--serve-classified: passages of classified documents are served to the MCP client, wherever it sends them")})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr, stop := c.interrupts()
	defer stop()
	go func() {
		select {
		case <-intr:
			cancel()
		case <-ctx.Done():
		}
	}()
	if addr == "" {
		fmt.Fprintf(c.stderr, c.tr("moteur: serving MCP over stdio: knowledge bases %s, tools %s\n"),
			strings.Join(srv.Bases(), ", "), strings.Join(srv.Tools(), ", "))
		err := srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopWriteCloser{c.stdout}})
		return failureUnlessDone(ctx, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failure(fmt.Errorf("--http %s: %w", f.http, err))
	}
	if !loopback {
		c.warn([]string{c.trf("--http %s listens beyond this machine: anyone who can reach %s reads the knowledge bases %s (no authentication)",
			f.http, ln.Addr(), strings.Join(srv.Bases(), ", "))})
	}
	fmt.Fprintf(c.stderr, c.tr("moteur: serving MCP on http://%s%s: knowledge bases %s, tools %s\n"),
		ln.Addr(), serve.Path, strings.Join(srv.Bases(), ", "), strings.Join(srv.Tools(), ", "))
	return failureUnlessDone(ctx, srv.Serve(ctx, ln))
}

// failureUnlessDone is err as a failure, unless the server stopped
// because it was asked to (Ctrl-C) or its client left.
func failureUnlessDone(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return failure(err)
}

// nopWriteCloser lets the transport close its side without closing the
// process's standard output.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
