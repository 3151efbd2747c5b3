package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callbackPath is the path of the loopback redirect URI.
const callbackPath = "/callback"

// callback is the loopback listener the browser is sent back to
// (RFC 8252 §7.3). It accepts one answer carrying this login's state; a
// request with another state (a stale tab, a page trying its luck) is
// refused and the wait goes on.
type callback struct {
	ln     net.Listener
	server string // for the page shown in the browser
}

// listenLoopback opens the listener on addr ("127.0.0.1:0" when empty),
// which must be a loopback IP address: the code must not be reachable from
// another machine.
func listenLoopback(server, addr string) (*callback, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("redirect address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("redirect address %q: want a loopback IP address such as 127.0.0.1", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for the browser's redirect on %s: %w", addr, err)
	}
	return &callback{ln: ln, server: server}, nil
}

// redirectURL is the redirect URI registered and sent to the server.
func (c *callback) redirectURL() string {
	return "http://" + c.ln.Addr().String() + callbackPath
}

// wait serves the redirect until an answer with state arrives or ctx ends.
// ready runs once the redirect is served, so that a browser opened from it
// finds the listener answering.
func (c *callback) wait(ctx context.Context, state string, ready func()) (*auth.AuthorizationResult, error) {
	type answer struct {
		res *auth.AuthorizationResult
		err error
	}
	done := make(chan answer, 1)
	deliver := func(a answer) {
		select {
		case done <- a:
		default: // an answer is already in
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+callbackPath, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.Error(w, "This answer does not belong to the login in progress; it was ignored.", http.StatusBadRequest)
			return
		}
		if e := q.Get("error"); e != "" {
			msg := e
			if d := q.Get("error_description"); d != "" {
				msg += ": " + d
			}
			c.page(w, http.StatusOK, "The authorization server refused the login: "+msg)
			deliver(answer{err: fmt.Errorf("the authorization server refused the login: %s", msg)})
			return
		}
		code := q.Get("code")
		if code == "" {
			c.page(w, http.StatusBadRequest, "The answer holds no authorization code.")
			deliver(answer{err: errors.New("the browser came back with no authorization code")})
			return
		}
		c.page(w, http.StatusOK, "Moteur received the authorization for "+c.server+". You may close this tab and go back to the terminal.")
		deliver(answer{res: &auth.AuthorizationResult{Code: code, State: q.Get("state"), Iss: q.Get("iss")}})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(c.ln) }()
	defer func() {
		// Graceful, so that the page of the answer reaches the browser.
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
	}()
	ready()
	select {
	case a := <-done:
		return a.res, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *callback) page(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>Moteur</title><p>%s</p>\n", html.EscapeString(msg))
}
