package profile

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Name
		ok   bool
	}{
		{"", Standard, true},
		{"standard", Standard, true},
		{" Restricted ", Restricted, true},
		{"AIRGAPPED", Airgapped, true},
		{"restricted-ish", "", false},
		{"restrict", "", false},
		{"air-gapped", "", false},
	} {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestGetSwitches(t *testing.T) {
	std := Get(Standard)
	if std.Name != Standard || (std.EnforceClassification || std.RequireAllowlist || std.LocalOnly || std.NoWebTools || std.ConfirmWebFetch || len(std.Jurisdictions) > 0) {
		t.Errorf("standard switches something on: %+v", std)
	}
	if Get("").Name != Standard {
		t.Errorf("Get(\"\") = %+v, want standard", Get(""))
	}
	r := Get(Restricted)
	if !r.EnforceClassification || !r.RequireAllowlist || r.LocalOnly || r.NoWebTools || !r.ConfirmWebFetch || !slices.Contains(r.Jurisdictions, ".fr") || !slices.Contains(r.Jurisdictions, ".eu") {
		t.Errorf("restricted = %+v", r)
	}
	a := Get(Airgapped)
	if !a.EnforceClassification || !a.RequireAllowlist || !a.LocalOnly || !a.NoWebTools || !a.ConfirmWebFetch {
		t.Errorf("airgapped = %+v", a)
	}
}

// A name that bypassed Parse gets every switch: it must not loosen anything.
func TestGetUnknownIsStrictest(t *testing.T) {
	p := Get("typo")
	if !p.EnforceClassification || !p.RequireAllowlist || !p.LocalOnly || !p.NoWebTools || !p.ConfirmWebFetch || len(p.Jurisdictions) == 0 {
		t.Errorf("Get(typo) = %+v, want every switch on", p)
	}
}

// Callers may append to a profile's list without changing the next Get.
func TestGetReturnsFreshSlices(t *testing.T) {
	p := Get(Restricted)
	p.Jurisdictions[0] = ".us"
	if Get(Restricted).Jurisdictions[0] == ".us" {
		t.Fatal("Get shares its jurisdiction list")
	}
}

func TestOutsideJurisdiction(t *testing.T) {
	r := Get(Restricted)
	for host, want := range map[string]bool{
		"api.mistral.ai":                 true,
		"api.openai.com":                 true,
		"llm.example.fr":                 false,
		"LLM.Example.FR.":                false,
		"https://llm.example.eu:8443/v1": false,
		"gpu.example.de":                 false,
		"example.fr.evil.com":            true,
		"evilfr":                         false, // single label: on the local network
		"127.0.0.1":                      false,
		"127.0.0.1:11434":                false,
		"[::1]:8080":                     false,
		"10.0.0.7":                       false,
		"192.168.1.2":                    false,
		"8.8.8.8":                        true,
		"[2001:4860:4860::8888]:443":     true,
		"localhost":                      false,
		"gpu-box.internal":               false,
		"nas.local":                      false,
		"":                               true,
	} {
		if got := r.OutsideJurisdiction(host); got != want {
			t.Errorf("restricted OutsideJurisdiction(%q) = %v, want %v", host, got, want)
		}
	}

	custom := Profile{Jurisdictions: []string{"*.corp.example", "api.mistral.ai"}}
	for host, want := range map[string]bool{
		"llm.corp.example": false,
		"corp.example.com": true,
		"api.mistral.ai":   false,
		"x.api.mistral.ai": true,
		"llm.example.fr":   true,
	} {
		if got := custom.OutsideJurisdiction(host); got != want {
			t.Errorf("custom OutsideJurisdiction(%q) = %v, want %v", host, got, want)
		}
	}

	if Get(Standard).OutsideJurisdiction("api.openai.com") {
		t.Error("standard has no jurisdiction and warns about nothing")
	}
}
