package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/server"
)

type serveFlags struct {
	addr            string
	grace           time.Duration
	mode            string
	sandbox         string
	approvalTimeout time.Duration
}

func (c *cli) serveCmd(g *globalFlags) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT]",
		Short: c.tr("Serve the HTTP API, the web page and the OpenAI-compatible door"),
		Long: c.tr("Serve Moteur over HTTP: the JSON API under /api/v1 (sessions, agent-chat and knowledge-chat as\n" +
			"Server-Sent Events, session events with Last-Event-ID resume, approvals, agents, knowledge bases),\n" +
			"the web page at /, and an OpenAI-compatible door at /v1 (each agent is a model). Every request\n" +
			"needs an API key (moteur keys create NAME), in X-API-Key or Authorization: Bearer.\n\n" +
			"Turns run with the same configuration, store, audit log and policy as moteur run in this directory:\n" +
			"a session started in the browser continues with moteur chat --session ID, and the other way round.\n\n" +
			"On SIGTERM or Ctrl-C no new turn starts; running turns finish within --grace, then are cancelled\n" +
			"(each ends with TurnCompleted in its log). A second signal stops at once."),
		Example: "  moteur keys create web\n  moteur serve\n  moteur serve --addr 0.0.0.0:8080 --grace 1m",
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.serve(cmd.Context(), g, f))
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:8080", c.tr("listen on HOST:PORT (:PORT is 127.0.0.1; port 0 picks a free one)"))
	cmd.Flags().DurationVar(&f.grace, "grace", 30*time.Second, c.tr("how long running turns may take to finish at shutdown"))
	cmd.Flags().StringVar(&f.mode, "mode", "", c.tr("access mode of every session: read_only, confirm or auto_write (default: the configuration's; an agent's access_level applies within it)"))
	cmd.Flags().StringVar(&f.sandbox, "sandbox", "", c.tr("isolation of shell commands: auto, bwrap or none"))
	cmd.Flags().DurationVar(&f.approvalTimeout, "approval-timeout", 0, c.tr("how long a call waits for an answer from the page or the API (default 10m)"))
	return cmd
}

func (c *cli) serve(ctx context.Context, g *globalFlags, f *serveFlags) error {
	addr, err := serveAddr(f.addr)
	if err != nil {
		return usageErrorf("--addr: %v", err)
	}
	mode, err := c.modeFlag(f.mode)
	if err != nil {
		return usageErrorf("--mode: %v", err)
	}
	o, err := c.options(g)
	if err != nil {
		return err
	}
	o.Mode, o.Sandbox, o.ApprovalTimeout = mode, f.sandbox, f.approvalTimeout
	st, err := c.settings(o) // the configuration is read once here, so that its mistakes show at start
	if err != nil {
		return err
	}
	o.DataDir = st.DataDir()
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return fmt.Errorf(c.tr("data directory: %w"), err)
	}
	db := st.Database()
	keys, err := db.Keys(ctx)
	if err != nil {
		return err
	}
	defer keys.Close()
	agents, err := db.Agents(ctx)
	if err != nil {
		return err
	}
	defer agents.Close()
	defer server.TuneGC(c.env)()
	srv, err := server.New(ctx, server.Config{Base: o, Keys: keys, Agents: agents})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(fmt.Errorf("--addr %s: %w", f.addr, err), srv.Shutdown(context.Background()))
	}
	return c.serveUntilSignal(ctx, srv, ln, f.grace)
}

// serveUntilSignal serves on ln until SIGTERM or Ctrl-C, then drains: the
// turns get grace to finish, then the HTTP server closes its connections.
func (c *cli) serveUntilSignal(ctx context.Context, srv *server.Server, ln net.Listener, grace time.Duration) error {
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	// The signals are taken before the address is printed: whoever waits
	// for that line may stop the server at once.
	intr, stopIntr := c.interrupts()
	defer stopIntr()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(c.stderr, c.tr("moteur: serving on %s (page %s/, API %s/api/v1, OpenAI door %s/v1)\n"), url, url, url, url)
	select {
	case err := <-served:
		return errors.Join(fmt.Errorf("serve: %w", err), srv.Shutdown(context.Background()))
	case <-intr:
	case <-term:
	case <-ctx.Done():
	}
	fmt.Fprintf(c.stderr, c.tr("moteur: shutting down: running turns have %s to finish\n"), grace)
	dctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// A second signal cuts the grace short: the turns are cancelled and
	// end with TurnCompleted (cancelled).
	go func() {
		select {
		case <-intr:
		case <-term:
		case <-dctx.Done():
		}
		cancel()
	}()
	drainErr := srv.Shutdown(dctx)
	if drainErr != nil {
		fmt.Fprintf(c.stderr, "moteur: %v\n", drainErr)
	}
	hctx, hcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer hcancel()
	if err := hs.Shutdown(hctx); err != nil {
		return fmt.Errorf(c.tr("close connections: %w"), err)
	}
	fmt.Fprintln(c.stderr, c.tr("moteur: stopped"))
	return nil
}

// serveAddr is --addr as a listen address: ":PORT" means 127.0.0.1,
// never every interface by accident.
func serveAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
