package app

import (
	"bytes"
	"testing"
	"time"
)

func TestNewSessionIDSortsByTime(t *testing.T) {
	random := bytes.NewReader(bytes.Repeat([]byte{0xab}, 16))
	at := time.Date(2026, 11, 30, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	a, err := NewSessionID(at, random)
	if err != nil {
		t.Fatal(err)
	}
	if a != "s-20261130T093000-abababababababab" {
		t.Errorf("id %q, want UTC time then 16 hex digits", a)
	}
	b, _ := NewSessionID(at.Add(time.Second), random)
	if !(a < b) {
		t.Errorf("%q not before %q", a, b)
	}
	if err := CheckSessionID(a); err != nil {
		t.Errorf("generated id rejected: %v", err)
	}
	if _, err := NewSessionID(at, bytes.NewReader(nil)); err == nil {
		t.Error("no error when randomness fails")
	}
}

func TestCheckSessionID(t *testing.T) {
	for _, id := range []string{"s-1", "abc.DEF_9"} {
		if err := CheckSessionID(id); err != nil {
			t.Errorf("%q rejected: %v", id, err)
		}
	}
	for _, id := range []string{"", ".hidden", "../x", "a/b", `a\b`, "a b", string(make([]byte, 129))} {
		if CheckSessionID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
}
