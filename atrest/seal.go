package atrest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
)

// A sealed value is laid out as
//
//	magic (8 bytes "MOTEUR\x00\x01") | key id (8 bytes) | nonce (12 bytes) | AES-256-GCM ciphertext and tag
//
// The magic tells a sealed value from a clear one (copies written by
// earlier versions), the key id which key sealed it.
var magic = []byte("MOTEUR\x00\x01")

const (
	idLen    = 8
	nonceLen = 12
	// Overhead is how many bytes sealing adds to a value.
	Overhead = 8 + idLen + nonceLen + 16
)

// Errors of Open; test them with errors.Is.
var (
	// ErrWrongKey: the value was sealed with another key.
	ErrWrongKey = errors.New("sealed with another at-rest key")
	// ErrDamaged: the value is sealed but does not decrypt: it was cut,
	// changed, or sealed for another purpose or context.
	ErrDamaged = errors.New("sealed value damaged or altered")
)

// IsSealed reports whether b has the layout of a sealed value.
func IsSealed(b []byte) bool { return len(b) >= Overhead && bytes.HasPrefix(b, magic) }

// Seal encrypts plaintext for purpose; ad is authenticated with it but not
// stored (a value's name, so that one sealed value cannot pass for another).
func (k *Key) Seal(purpose string, plaintext, ad []byte) ([]byte, error) {
	aead, err := k.aead(purpose)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(plaintext)+Overhead)
	out = append(out, magic...)
	id, _ := hex.DecodeString(k.id)
	out = append(out, id...)
	nonce := make([]byte, nonceLen)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("at-rest key: nonce: %w", err)
	}
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plaintext, ad), nil
}

// Open decrypts a value Seal made for the same purpose and ad.
func (k *Key) Open(purpose string, sealed, ad []byte) ([]byte, error) {
	if !IsSealed(sealed) {
		return nil, fmt.Errorf("%w: not a sealed value", ErrDamaged)
	}
	id := hex.EncodeToString(sealed[len(magic) : len(magic)+idLen])
	if id != k.id {
		return nil, fmt.Errorf("%w: sealed with key %s, this key is %s (%s)", ErrWrongKey, id, k.id, k.describe())
	}
	aead, err := k.aead(purpose)
	if err != nil {
		return nil, err
	}
	nonce := sealed[len(magic)+idLen : len(magic)+idLen+nonceLen]
	plain, err := aead.Open(nil, nonce, sealed[len(magic)+idLen+nonceLen:], ad)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return plain, nil
}

func (k *Key) aead(purpose string) (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.Subkey(purpose))
	if err != nil {
		return nil, fmt.Errorf("at-rest key: %w", err)
	}
	return cipher.NewGCM(block)
}

func (k *Key) describe() string {
	if k.path == "" {
		return "given directly"
	}
	return "from " + k.path
}
