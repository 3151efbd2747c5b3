package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/moteur/moteur/apikey"
)

// Codes of authentication and scope errors.
const (
	CodeUnauthorized = "unauthorized"
	CodeForbidden    = "forbidden"
)

type keyCtx struct{}

// authenticate checks the request's key — X-API-Key, or Authorization:
// Bearer — before h runs: 401 without one or with one the store does not
// know (or revoked), with WWW-Authenticate so that clients know how.
func (s *Server) authenticate(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret := requestKey(r)
		if secret == "" {
			unauthorized(w, "no API key: send it in X-API-Key or Authorization: Bearer (moteur keys create NAME makes one)")
			return
		}
		k, err := s.cfg.Keys.Verify(r.Context(), secret)
		if errors.Is(err, apikey.ErrInvalid) {
			unauthorized(w, "invalid API key: unknown or revoked")
			return
		}
		if err != nil {
			WriteError(w, err)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, k)))
	})
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="moteur"`)
	WriteError(w, apiErrorf(http.StatusUnauthorized, CodeUnauthorized, "%s", msg))
}

// requestKey is the secret of r: X-API-Key, else a Bearer token.
func requestKey(r *http.Request) string {
	if k := strings.TrimSpace(r.Header.Get("X-API-Key")); k != "" {
		return k
	}
	auth := r.Header.Get("Authorization")
	if scheme, token, ok := strings.Cut(auth, " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	return ""
}

// keyOf is the key an authenticated request was made with.
func keyOf(r *http.Request) apikey.Key {
	k, _ := r.Context().Value(keyCtx{}).(apikey.Key)
	return k
}

// forbidAgent refuses an agent outside the key's scope (403).
func forbidAgent(k apikey.Key, id string) error {
	if id == "" || k.AllowsAgent(id) {
		return nil
	}
	return apiErrorf(http.StatusForbidden, CodeForbidden, "key %s may not use agent %s", k.Name, id)
}

// forbidBases refuses a knowledge base outside the key's scope (403).
func forbidBases(k apikey.Key, bases []string) error {
	for _, b := range bases {
		if !k.AllowsBase(b) {
			return apiErrorf(http.StatusForbidden, CodeForbidden, "key %s may not use knowledge base %s", k.Name, b)
		}
	}
	return nil
}
