package redact

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/moteur/moteur/redact/redacttest"
)

func TestStringRules(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Keys found by their shape, anywhere.
		{"key " + redacttest.OpenAI + " end", "key [REDACTED:openai_key] end"},
		{"old:" + redacttest.OpenAIOld, "old:[REDACTED:openai_key]"},
		{`"` + redacttest.Anthropic + `"`, `"[REDACTED:anthropic_key]"`},
		{"id " + redacttest.AWS + ".", "id [REDACTED:aws_access_key]."},
		{"ASIAY34FZKBOKMUTVV7A,", "[REDACTED:aws_access_key],"},
		{"git push https://x-access-token@github.com " + redacttest.GitHub, "git push https://x-access-token@github.com [REDACTED:github_token]"},
		{redacttest.GitHubPAT, "[REDACTED:github_token]"},
		{"slack " + redacttest.Slack, "slack [REDACTED:slack_token]"},
		{"maps?key=" + redacttest.Google + "&z=1", "maps?key=[REDACTED:google_api_key]&z=1"},
		{"cookie=" + redacttest.JWT + "; path=/", "cookie=[REDACTED:jwt]; path=/"},
		{"token " + redacttest.JWT + ".", "token [REDACTED:jwt]."},
		{"Authorization: Bearer " + redacttest.Bearer + "\r\n", "Authorization: Bearer [REDACTED:bearer_token]\r\n"},
		{`curl -H "authorization: bearer ` + redacttest.Bearer + `"`, `curl -H "authorization: bearer [REDACTED:bearer_token]"`},
		{"Bearer " + redacttest.JWT, "Bearer [REDACTED:jwt]"},
		{"Bearer " + redacttest.OpenAI, "Bearer [REDACTED:openai_key]"},

		// Private keys, the whole block.
		{"a\n" + redacttest.RSA + "\nb", "a\n[REDACTED:private_key]\nb"},
		{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----", "[REDACTED:private_key]"},
		{"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIGlRHTnXRAWh0ZLg1sS0Zu8\n-----END EC PRIVATE KEY-----x", "[REDACTED:private_key]x"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----", "[REDACTED:private_key]"},
		{"-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQww\n-----END ENCRYPTED PRIVATE KEY-----", "[REDACTED:private_key]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,1\n\nAAAA\n-----END RSA PRIVATE KEY-----", "[REDACTED:private_key]"},
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", "[REDACTED:private_key]"},
		{"cut here\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIBAD", "cut here\n[REDACTED:private_key]"},
		{`{"pem":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"}`, `{"pem":"[REDACTED:private_key]\n"}`},

		// Passwords in URLs.
		{"https://alice:s3cr3t@example.com/x", "https://alice:[REDACTED:url_password]@example.com/x"},
		{"DATABASE_URL=postgres://app:p%40ss!w0rd@db:5432/app", "DATABASE_URL=postgres://app:[REDACTED:url_password]@db:5432/app"},
		{"redis://:hunter2@cache", "redis://:[REDACTED:url_password]@cache"},

		// Assignments: the name and the operator stay.
		{"OPENAI_API_KEY=a1b2c3d4e5", "OPENAI_API_KEY=[REDACTED:env_secret]"},
		{"OPENAI_API_KEY=" + redacttest.OpenAI, "OPENAI_API_KEY=[REDACTED:openai_key]"},
		{`export DB_PASSWORD="hunter 2" && run`, `export DB_PASSWORD="[REDACTED:env_secret]" && run`},
		{"db:\n  password: correct horse battery\n  user: app", "db:\n  password: [REDACTED:env_secret]\n  user: app"},
		{"- token: a1b2c3d4e5\n", "- token: [REDACTED:env_secret]\n"},
		{`{"api_key": "a1b2c3d4e5", "n": 1}`, `{"api_key": "[REDACTED:env_secret]", "n": 1}`},
		{`{"password":"a\"b","n":1}`, `{"password":"[REDACTED:env_secret]","n":1}`},
		{`{'client_secret': 'zz'}`, `{'client_secret': '[REDACTED:env_secret]'}`},
		{`{"command":"export TOKEN=\"a1b2c3d4e5\"; make"}`, `{"command":"export TOKEN=\"[REDACTED:env_secret]\"; make"}`},
		{`{"body":"{\"password\": \"hunter2\"}"}`, `{"body":"{\"password\": \"[REDACTED:env_secret]\"}"}`},
		{"run --api-key=a1b2c3d4e5 --v", "run --api-key=[REDACTED:env_secret] --v"},
		{"GET /cb?access_token=a1b2c3d4e5&state=x", "GET /cb?access_token=[REDACTED:env_secret]&state=x"},
		{`const apiKey = "a1b2c3d4e5";`, `const apiKey = "[REDACTED:env_secret]";`},
		{`password := "hunter2"`, `password := "[REDACTED:env_secret]"`},
		{"X-Api-Key: a1b2c3d4e5\nAccept: */*", "X-Api-Key: [REDACTED:env_secret]\nAccept: */*"},
		{"spring.datasource.password=s3cret", "spring.datasource.password=[REDACTED:env_secret]"},
		{"APIKEY=a1b2c3d4e5", "APIKEY=[REDACTED:env_secret]"},
		{"GOOGLE_CREDENTIALS=abc", "GOOGLE_CREDENTIALS=[REDACTED:env_secret]"},
		{"key=AbCdEfGhIjKlMnOpQr", "key=[REDACTED:env_secret]"},
		{`"token": "9f86d081884c7d65"`, `"token": "[REDACTED:env_secret]"`},
		{"PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "PRIVATE_KEY=[REDACTED:env_secret]"},
		{"password: 123456", "password: [REDACTED:env_secret]"},
		{"Password: pw", "Password: [REDACTED:env_secret]"},
		{`Password: "pw",`, `Password: "[REDACTED:env_secret]",`},
		{"aws_secret_access_key = " + redacttest.AWSSecret, "aws_secret_access_key = [REDACTED:aws_secret_key]"},
		{`"SecretAccessKey": "` + redacttest.AWSSecret + `"`, `"SecretAccessKey": "[REDACTED:aws_secret_key]"`},
		{"AWS_ACCESS_KEY_ID=" + redacttest.AWS + "\nAWS_SECRET_ACCESS_KEY=" + redacttest.AWSSecret,
			"AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key]\nAWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]"},
		{"GITHUB_TOKEN=Bearer " + redacttest.Bearer, "GITHUB_TOKEN=Bearer [REDACTED:bearer_token]"},
		{`SECRET="Bearer ` + redacttest.Bearer + `"`, `SECRET="[REDACTED:env_secret]"`},
		// Once the block is gone, the key glued to it has a boundary.
		{redacttest.RSA + redacttest.OpenAI, "[REDACTED:private_key][REDACTED:openai_key]"},
		{"-----END PRIVATE KEY-----" + redacttest.OpenAI, "-----END PRIVATE KEY-----" + redacttest.OpenAI},
	} {
		got, _ := String(c.in)
		if got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestStringLeavesOrdinaryTextAlone lists text that looks like secrets
// to a careless rule.
func TestStringLeavesOrdinaryTextAlone(t *testing.T) {
	for _, in := range []string{
		"commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c\nAuthor: A <a@b.c>\nDate:   Mon Jan 2 15:04:05 2026 +0100",
		"id 123e4567-e89b-12d3-a456-426614174000 sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		`<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">`,
		"the bearer of bad news; HTTP Bearer Authentication; a forbearer-of-things",
		"run the task-management-system-for-everyone and a risk-assessment-for-the-project-2024",
		"pip install sk-learn-tutorial-for-beginners-and-experts",
		"Your password: must be at least 8 characters. The key: a string.",
		"monkey: banana\nMONKEY=1\nturkey = 3\nhockey: 4",
		"PWD=/home/me\nOLDPWD=/tmp",
		`if key == "ArrowUp" || token != "" { apiKey := os.Getenv("API_KEY") }`,
		"API_KEY=\nAPI_KEY=\"\"\nAPI_KEY=<your-key>\nAPI_KEY=${API_KEY}\nTOKEN=$GITHUB_TOKEN\nSECRET=xxx\nPASSWORD=****",
		"password: changeme\napi_key: your-api-key-here\ntoken: null\nsecret: true\nkey: [a, b]\nkey: {{ .Values.key }}",
		`token = os.environ["TOKEN"]` + "\n" + `api_key = get_key()` + "\n" + `self.token = token` + "\n" + `password=password`,
		`{"public_key": "ssh-ed25519 AAAAC3Nza", "eos_token": "</s>", "pad_token": "<pad>", "primary_key": "id"}`,
		`const hdr = "-----BEGIN RSA PRIVATE KEY-----"` + "\n" + `if strings.HasPrefix(s, "-----BEGIN PRIVATE KEY-----\n") {`,
		"http://example.com:8080/path git@github.com:org/repo.git ssh://git@host/x https://user@host/",
		"postgres://app:${DB_PASSWORD}@db/app https://u:$PASS@h",
		"ASIA-PACIFIC AKIA AKIAIOSFODNN7EXAMPLE3X",
		"ghp_short gho_ xoxb-1 AIza eyJhbGciOiJ sk-",
		"api_key: [REDACTED:env_secret] Bearer [REDACTED:bearer_token] https://u:[REDACTED:url_password]@h",
		"a: b, c=d, e := f(); x == y; 12:30",
		// Keys and tokens that are code or words, not credentials.
		"key=value\nSYS_REQUEST_KEY = 218\nFS_IOC_REMOVE_ENCRYPTION_KEY = 0xc0406618\nEmptyFallback Key = iota",
		"new := &Line{Token: tok}\n\tline.Token = tok\n\tKey:    key,\n\tapiKey:   cfg.APIKey,\n\tPassword: pw,\n",
		`com.Token = "//" + text; {"key": "menu.file.open", "path-key": "3.0.0"}; (key: string | number) =>`,
		"for _, secret := range secrets {\n\tsecret := strings.TrimSpace(s)\n}\n" + `os.Setenv("GITHUB_TOKEN=" + tok)`,
		"DELETE FROM leases WHERE token = ? AND key = :key AND secret = $1 AND password = @pw",
		"permissions:\n  id-token: write\n  contents: read",
		// A backslash that ends the text starts no escape.
		`\`, `C:\Users\me\`, "x = \"a\\",
	} {
		if got, kinds := String(in); got != in || kinds != nil {
			t.Errorf("String changed ordinary text\n  in %q\n got %q (%v)", in, got, kinds)
		}
	}
}

func TestStringKinds(t *testing.T) {
	_, kinds := String("x " + redacttest.GitHub + " y " + redacttest.OpenAI + " z " + redacttest.GitHub + " PASSWORD=a")
	if want := []string{kindEnvSecret, kindGitHubToken, kindOpenAIKey}; !slices.Equal(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	s := "nothing here"
	if got, kinds := String(s); got != s || kinds != nil {
		t.Errorf("String(%q) = %q, %v", s, got, kinds)
	}
}

// assertMaskedClean checks the properties every output must have: masking it
// again changes nothing, and no rule matches it.
func assertMaskedClean(t *testing.T, in, out string) {
	t.Helper()
	if again, kinds := String(out); again != out || kinds != nil {
		t.Fatalf("not idempotent:\n   in %q\n once %q\ntwice %q", in, out, again)
	}
	for i, f := range finders {
		if sp := f(out, nil); len(sp) > 0 {
			t.Fatalf("rule %d matches the output %q at %v (input %q)", i, out, sp, in)
		}
		if v, ok := newView(out); ok {
			if sp := f(v.text, nil); len(sp) > 0 {
				t.Fatalf("rule %d matches the decoded output %q at %v (input %q)", i, v.text, sp, in)
			}
		}
	}
}

func TestStringIdempotent(t *testing.T) {
	for _, in := range maskSeeds() {
		out, _ := String(in)
		assertMaskedClean(t, in, out)
	}
}

func maskSeeds() []string {
	return []string{
		redacttest.OpenAI, redacttest.Anthropic, redacttest.AWS, redacttest.GitHub, redacttest.GitHubPAT, redacttest.Slack, redacttest.Google, redacttest.JWT, redacttest.RSA,
		"Bearer " + redacttest.Bearer, "https://a:b@c", "API_KEY=" + redacttest.OpenAI + "x",
		"-----END PRIVATE KEY-----" + redacttest.OpenAI + redacttest.RSA,
		`{"password":"` + redacttest.RSA[:60], "KEY=abc[REDACTED:jwt]", "KEY=[REDACTED:jwt]abc",
		"token: " + redacttest.JWT + " trailing\npassword: 'x", `\"secret\": \"x`,
		"sk-" + strings.Repeat("A1", 15) + "sk-" + strings.Repeat("b2", 12),
		"PASSWORD=" + redacttest.Google + "\tTOKEN=Bearer " + redacttest.Bearer,
		`sk-proj-\u0041b3dEfGh1jKlMnOpQrStUvWx`, redacttest.EscapeAll(redacttest.GitHub), "sk-proj-Ab3d\u200bEfGh1jKlMnOpQrStUvWx",
		`\\u0041`, `\uD83D\uDE00 \u{1F600} \x41 \U0001F600`, "ｓｋ－ｐｒｏｊ－Ａｂ３ｄＥｆＧｈ１ｊＫｌＭｎＯｐＱｒＳｔＵｖＷｘ",
	}
}

// TestStringDecodesEscapes: a secret spelled with escapes, invisible or
// fullwidth characters is masked in the text, escapes and all, and JSON
// stays JSON.
func TestStringDecodesEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"key":"sk-proj-\u0041b3dEfGh1jKlMnOpQrStUvWx"}`, `{"key":"[REDACTED:openai_key]"}`},
		{`{"t":"` + redacttest.EscapeAll(redacttest.GitHub) + `"}`, `{"t":"[REDACTED:github_token]"}`},
		{`"x\u003d` + redacttest.OpenAI + `"`, `"x\u003d[REDACTED:openai_key]"`}, // "x=sk-…" once decoded
		{`tok = '\x67hp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'`, `tok = '[REDACTED:github_token]'`},
		{`\ud83d\ude00 sk-proj-\u{41}b3dEfGh1jKlMnOpQrStUvWx`, `\ud83d\ude00 [REDACTED:openai_key]`},
		{"key sk-proj-Ab3d\u200bEfGh1jKlMnOpQrStUvWx end", "key [REDACTED:openai_key] end"},
		{"key sk-proj-Ab3d\u00adEfGh1jKlMnOpQrStUvWx end", "key [REDACTED:openai_key] end"},
		{"ｓｋ－ｐｒｏｊ－Ａｂ３ｄＥｆＧｈ１ｊＫｌＭｎＯｐＱｒＳｔＵｖＷｘ", "[REDACTED:openai_key]"},
		{`PASSWORD=\u0068unter2`, `PASSWORD=[REDACTED:env_secret]`},
		// An escaped backslash is text: no escape, nothing to mask.
		{`"\\u0041 sk-proj"`, `"\\u0041 sk-proj"`},
		// Escapes of quotes and white space stay escapes: a string's
		// bounds do not move.
		{`{"a":"\u0022","b":"\u000a"}`, `{"a":"\u0022","b":"\u000a"}`},
	} {
		got, _ := String(c.in)
		if got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestLinesKeepsLines(t *testing.T) {
	in := "a\n" + redacttest.RSA + "\nb PASSWORD=x\r\n-----BEGIN PRIVATE KEY-----\r\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\r\n\r\nMIIEvQ\r\n-----END PRIVATE KEY-----\r\nz"
	got, kinds := Lines(in)
	if strings.Count(got, "\n") != strings.Count(in, "\n") || strings.Count(got, "\r") != strings.Count(in, "\r") {
		t.Fatalf("Lines changed the line count:\n%q\n%q", in, got)
	}
	want := "a\n" + strings.Repeat("[REDACTED:private_key]\n", 4) + "b PASSWORD=[REDACTED:env_secret]\r\n" +
		"[REDACTED:private_key]\r\n[REDACTED:private_key]\r\n\r\n[REDACTED:private_key]\r\n[REDACTED:private_key]\r\nz"
	if got != want || !slices.Equal(kinds, []string{kindEnvSecret, kindPrivateKey}) {
		t.Errorf("Lines(%q)\n got %q %v\nwant %q", in, got, kinds, want)
	}
	if s, k := String(got); s != got || k != nil {
		t.Errorf("Lines' output is masked again: %q", s)
	}
	assertMaskedClean(t, in, got)
}

// fuzzMask fuzzes mask from the seeds: it changes nothing without naming
// a kind, and what it returns is masked clean; check, when not nil, checks
// what mask promises besides.
func fuzzMask(f *testing.F, mask func(string) (string, []string), check func(t *testing.T, in, out string)) {
	for _, s := range maskSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, kinds := mask(in)
		if kinds == nil && out != in {
			t.Fatalf("changed without a kind: %q -> %q", in, out)
		}
		if check != nil {
			check(t, in, out)
		}
		assertMaskedClean(t, in, out)
	})
}

func FuzzLines(f *testing.F) {
	fuzzMask(f, Lines, func(t *testing.T, in, out string) {
		if strings.Count(out, "\n") != strings.Count(in, "\n") {
			t.Fatalf("line count changed: %q -> %q", in, out)
		}
	})
}

func FuzzString(f *testing.F) { fuzzMask(f, String, nil) }

func benchWithSecrets(n int) string {
	s := redacttest.ToolOutput(n)
	parts := []string{"OPENAI_API_KEY=" + redacttest.OpenAI, "Authorization: Bearer " + redacttest.JWT, redacttest.RSA, "https://u:pw12345@db/x", redacttest.GitHub}
	step := len(s) / (len(parts) + 1)
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(s[i*step : (i+1)*step])
		b.WriteString("\n" + p + "\n")
	}
	b.WriteString(s[len(parts)*step:])
	return b.String()
}

func BenchmarkString(b *testing.B) {
	for _, c := range []struct {
		name string
		text string
	}{
		{"clean64KiB", redacttest.ToolOutput(64 << 10)},
		{"secrets64KiB", benchWithSecrets(64 << 10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				String(c.text)
			}
		})
	}
}

// adversarialTexts repeat the anchors of every rule, so that a rule that
// rescans the rest of the text per anchor shows as quadratic time.
func adversarialTexts(n int) map[string]string {
	rep := func(unit string) string { return strings.Repeat(unit, n/len(unit)+1)[:n] }
	return map[string]string{
		"minified json":   `{"items":[` + rep(`{"token":"a1b2c3d4e5","api_key":"$X","password":"",`) + `]}`,
		"chained names":   "x=" + rep("k_key="),
		"chained tokens":  rep("MY_TOKEN=abcdefgh"),
		"escaped quotes":  rep(`\"password\": \"x`),
		"yaml":            rep("password: x\n"),
		"markers":         rep("[REDACTED:jwt]" + redacttest.GitHub + " "),
		"key headers":     rep("-----BEGIN PRIVATE KEY----- "),
		"unended key":     "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + rep("-----END PUBLIC KEY-----"),
		"sk runs":         rep(" sk-" + strings.Repeat("a", 40)),
		"jwt prefixes":    rep(" eyJhbGciOiJIUzI1NiJ9.eyJ"),
		"bearers":         rep("Bearer Bearer "),
		"urls":            rep("a://b:c@"),
		"colons":          rep("key: "),
		"single quotes":   rep("password='x "),
		"long exemptions": "token=" + rep("$"),
	}
}

// BenchmarkStringAdversarial masks inputs built to make a rule rescan
// the text per anchor, at 16 KiB and 128 KiB: linear work shows the same
// MB/s at both sizes, quadratic work an eightfold drop.
func BenchmarkStringAdversarial(b *testing.B) {
	for _, size := range []int{16 << 10, 128 << 10} {
		for name, s := range adversarialTexts(size) {
			b.Run(fmt.Sprintf("%s/%dKiB", strings.ReplaceAll(name, " ", "_"), size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					String(s)
				}
			})
		}
	}
}

// BenchmarkStringDecoded masks 64 KiB that needs the decoded view: JSON
// with \u escapes and "\n" in every string (a write_file call's
// arguments), and French prose with typographic characters but no escape
// (which needs none: the cost of deciding so).
func BenchmarkStringDecoded(b *testing.B) {
	var j strings.Builder
	for j.Len() < 64<<10 {
		j.WriteString(`{"path":"src/caf\u00e9.go","content":"package main\nfunc main() {\n\tprintln(\"h\u00e9llo\")\n}\n"},`)
	}
	prose := strings.Repeat("L’équipe a réuni les données — « voir le plan » — à 12 h 30. ", 64<<10/70)
	for _, c := range []struct{ name, text string }{
		{"escaped_json64KiB", j.String()[:64<<10]},
		{"french64KiB", prose},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				String(c.text)
			}
		})
	}
}

// TestNeedsViewMatchesTheView: the quick check and the view agree on
// every format character and fullwidth letter of the BMP and beyond.
func TestNeedsViewMatchesTheView(t *testing.T) {
	for r := rune(0x80); r <= 0xE01EF; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		s := "a" + string(r) + "b"
		_, viewed := newView(s)
		if needsView(s) != viewed || viewed != (unicode.Is(unicode.Cf, r) || widthFold(r) != r) {
			t.Fatalf("U+%04X: needsView %v, view %v", r, needsView(s), viewed)
		}
	}
}
