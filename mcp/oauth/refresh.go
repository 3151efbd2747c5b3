package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// errGrantRefused: the token endpoint refused the refresh token or the
// client (invalid_grant, invalid_client, unauthorized_client): only a new
// login helps.
var errGrantRefused = errors.New("the authorization server refused the refresh")

// maxTokenResponse bounds what is read of a token endpoint's answer.
const maxTokenResponse = 1 << 20

// refreshGrant asks the token endpoint for a new access token with g's
// refresh token and returns the updated grant (g itself is not changed).
//
// It is written here rather than left to oauth2.Config.TokenSource because
// the MCP authorization spec wants the resource parameter (RFC 8707) on
// every token request, and oauth2's refresh cannot carry it.
func refreshGrant(ctx context.Context, c *http.Client, g *grant, now time.Time) (*grant, error) {
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {g.RefreshToken},
	}
	if g.Resource != "" {
		form.Set("resource", g.Resource)
	}
	basic := g.ClientSecret != "" && oauth2.AuthStyle(g.AuthStyle) != oauth2.AuthStyleInParams
	if !basic {
		form.Set("client_id", g.ClientID)
		if g.ClientSecret != "" {
			form.Set("client_secret", g.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token refresh: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 §2.3.1: both parts form-encoded before Basic.
		req.SetBasicAuth(url.QueryEscape(g.ClientID), url.QueryEscape(g.ClientSecret))
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token refresh at %s: %w", redactURL(g.TokenURL), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	if err != nil {
		return nil, fmt.Errorf("token refresh at %s: %w", redactURL(g.TokenURL), err)
	}
	tr, err := parseTokenResponse(resp.Header.Get("Content-Type"), body)
	if err != nil {
		return nil, fmt.Errorf("token refresh at %s: HTTP %d: %w", redactURL(g.TokenURL), resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || tr.Error != "" {
		err := fmt.Errorf("token refresh at %s: HTTP %d: %s", redactURL(g.TokenURL), resp.StatusCode, tr.describeError())
		switch tr.Error {
		case "invalid_grant", "invalid_client", "unauthorized_client":
			return nil, fmt.Errorf("%w: %w", errGrantRefused, err)
		}
		return nil, err
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("token refresh at %s: the answer holds no access_token", redactURL(g.TokenURL))
	}
	if tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "bearer") {
		return nil, fmt.Errorf("token refresh at %s: token type %q, only Bearer is supported", redactURL(g.TokenURL), tr.TokenType)
	}
	n := *g
	n.AccessToken = tr.AccessToken
	n.TokenType = tr.TokenType
	if tr.RefreshToken != "" { // rotated; otherwise the old one stays valid
		n.RefreshToken = tr.RefreshToken
	}
	n.Expiry = time.Time{}
	if tr.ExpiresIn > 0 {
		n.Expiry = now.Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	if tr.Scope != "" {
		n.Scopes = strings.Fields(tr.Scope)
	}
	n.Saved = now
	return &n, nil
}

// tokenResponse is a token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	RefreshToken     string `json:"refresh_token"`
	ExpiresIn        int64  `json:"-"`
	Scope            string `json:"scope"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

func (t *tokenResponse) describeError() string {
	if t.Error == "" {
		return "no error code given"
	}
	if t.ErrorDescription != "" {
		return t.Error + ": " + t.ErrorDescription
	}
	return t.Error
}

// parseTokenResponse reads JSON, or the form encoding some servers still
// answer with. The body itself never goes into an error: it may hold a token.
func parseTokenResponse(contentType string, body []byte) (*tokenResponse, error) {
	var t tokenResponse
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" || mt == "text/plain" {
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, errors.New("unreadable form-encoded answer")
		}
		t = tokenResponse{AccessToken: v.Get("access_token"), TokenType: v.Get("token_type"),
			RefreshToken: v.Get("refresh_token"), Scope: v.Get("scope"),
			Error: v.Get("error"), ErrorDescription: v.Get("error_description")}
		t.ExpiresIn, _ = strconv.ParseInt(v.Get("expires_in"), 10, 64)
		return &t, nil
	}
	var raw struct {
		tokenResponse
		ExpiresIn json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("the answer is not JSON (content type %q)", contentType)
	}
	t = raw.tokenResponse
	// A number, or a number in a string as some servers send it.
	if s := strings.Trim(string(raw.ExpiresIn), `"`); s != "" && s != "null" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("expires_in %q is not a number of seconds", s)
		}
		t.ExpiresIn = n
	}
	return &t, nil
}
