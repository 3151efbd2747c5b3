package oauth

import (
	"strings"
	"testing"
)

func TestParseTokenResponseForms(t *testing.T) {
	cases := []struct {
		ct, body string
		want     tokenResponse
		err      string
	}{
		{"application/json", `{"access_token":"a","token_type":"Bearer","expires_in":60,"refresh_token":"r","scope":"x y"}`,
			tokenResponse{AccessToken: "a", TokenType: "Bearer", ExpiresIn: 60, RefreshToken: "r", Scope: "x y"}, ""},
		{"application/json; charset=utf-8", `{"access_token":"a","expires_in":"3600"}`, tokenResponse{AccessToken: "a", ExpiresIn: 3600}, ""},
		{"application/x-www-form-urlencoded", `access_token=a&expires_in=5&token_type=bearer`, tokenResponse{AccessToken: "a", ExpiresIn: 5, TokenType: "bearer"}, ""},
		{"application/json", `{"error":"invalid_grant","error_description":"expired"}`, tokenResponse{Error: "invalid_grant", ErrorDescription: "expired"}, ""},
		{"application/json", `{"access_token":"a","expires_in":"soon"}`, tokenResponse{}, `expires_in "soon" is not a number`},
		{"text/html", `<html>secret-looking body</html>`, tokenResponse{}, "not JSON"},
	}
	for _, c := range cases {
		got, err := parseTokenResponse(c.ct, []byte(c.body))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "secret-looking") {
				t.Errorf("%s %q: %v, want an error saying %q without the body", c.ct, c.body, err, c.err)
			}
			continue
		}
		if err != nil || *got != c.want {
			t.Errorf("%s %q: %+v, %v; want %+v", c.ct, c.body, got, err, c.want)
		}
	}
}

func FuzzParseTokenResponse(f *testing.F) {
	f.Add("application/json", `{"access_token":"a","expires_in":60}`)
	f.Add("application/x-www-form-urlencoded", "access_token=a&expires_in=x")
	f.Add("application/json", `{"expires_in":"12"}`)
	f.Fuzz(func(t *testing.T, ct, body string) {
		got, err := parseTokenResponse(ct, []byte(body))
		if err == nil && got == nil {
			t.Fatal("no error and no response")
		}
		if err != nil && len(body) > 8 && !strings.Contains(ct, body) && strings.Contains(err.Error(), body) {
			t.Fatal("the body shows in the error")
		}
	})
}
