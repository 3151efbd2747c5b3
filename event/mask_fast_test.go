package event

import (
	"reflect"
	"strings"
	"testing"

	"github.com/moteur/moteur/redact/redacttest"
)

// TestMaskEventOneSecretField: the payloads MaskEvent returns as given when
// nothing was masked (its fast path for the payloads of every round) are
// masked whichever one of their fields holds the secret, the others clean:
// a field whose change went unreported would be sent back unmasked.
func TestMaskEventOneSecretField(t *testing.T) {
	const secret = "leak OPENAI_API_KEY=" + redacttest.OpenAI
	const clean = "texte sans secret"
	for _, p := range []any{ToolResultPayload{}, AssistantMessagePayload{}, UserMessagePayload{}} {
		pt := reflect.TypeOf(p)
		var paths []string
		base := reflect.New(pt).Elem()
		fill(base, clean)
		eachString(base, pt.Name(), func(path, _ string) { paths = append(paths, path) })
		masked := 0
		for k, path := range paths {
			if maskExempt[path] {
				continue
			}
			in := reflect.New(pt).Elem()
			fill(in, clean)
			n := 0
			eachLeaf(in, pt.Name(), func(_ string, v reflect.Value) {
				if v.Kind() == reflect.String {
					if n == k {
						v.SetString(secret)
					}
					n++
				}
			})
			out := MaskEvent(Event{Seq: 1, Type: ToolResult, SessionID: "s", Payload: in.Interface()})
			eachString(reflect.ValueOf(out.Payload), pt.Name(), func(p, s string) {
				if strings.Contains(s, redacttest.OpenAI) {
					t.Errorf("%s alone holding the secret: %s keeps it: %q", path, p, s)
				}
			})
			masked++
		}
		if masked == 0 {
			t.Errorf("%s: no field was tried", pt.Name())
		}
	}
}
