package oauth

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
)

// OpenSystemBrowser asks the desktop to open u (xdg-open, open, or
// rundll32 on Windows), for LoginConfig.OpenBrowser. It returns once the
// opener has started, not when the page is shown; the URL goes as one
// argument, never through a shell. The opener is not tied to ctx: ending
// the login must not close the browser it started.
func OpenSystemBrowser(_ context.Context, u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return fmt.Errorf("not opening %q in a browser: not an http(s) URL", redactURL(u))
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening a browser: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reap it
	return nil
}
