package analyze

import (
	"strings"
	"testing"

	"github.com/abadojack/whatlanggo"
)

// benchText is about 64 KiB of the prose a knowledge base holds, two thirds
// French, with identifiers and accents.
var benchText = func() string {
	const para = `La politique de sécurité réseau impose l'authentification à deux facteurs pour tout accès au VPN de l'entreprise. ` +
		`Les utilisateurs doivent réinitialiser leur mot de passe tous les quatre-vingt-dix jours ; en cas d'erreur ERR_4012, contactez le support. ` +
		`The deployment pipeline retries failed jobs up to max_retries times before paging the on-call engineer (see X-Request-ID in the logs). ` +
		`Les congés payés se posent dans l’outil RH au moins quinze jours à l'avance, après validation du responsable. ` +
		`Configuration keys such as http.client.timeout and cache.ttl_seconds are documented in v2.4.1 of the operations guide. `
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString(para)
	}
	return b.String()
}()

func BenchmarkTerms(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		Terms(benchText, Options{})
	}
}

func BenchmarkTermsRaw(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		Terms(benchText, Options{Raw: true})
	}
}

func BenchmarkQueryTerms(b *testing.B) {
	const q = "Quelle est la procédure pour réinitialiser mon mot de passe après l'erreur ERR_4012 ?"
	b.SetBytes(int64(len(q)))
	b.ReportAllocs()
	for b.Loop() {
		QueryTerms(q, Options{})
	}
}

func BenchmarkTermsSnowball(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		Terms(benchText, Options{Snowball: true, Language: French})
	}
}

func BenchmarkDetect(b *testing.B) {
	b.SetBytes(DetectPrefix)
	b.ReportAllocs()
	for b.Loop() {
		Detect(benchText)
	}
}

// BenchmarkDetectInfo measures language detection of a KiB of benchText by
// the inverted profiles (trigrams.go) beside the detector's own computation.
func BenchmarkDetectInfo(b *testing.B) {
	text := benchText[:DetectPrefix]
	b.Run("inverted", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			detectInfo(text, whatlanggo.Options{})
		}
	})
	b.Run("whatlanggo", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			whatlanggo.DetectWithOptions(text, whatlanggo.Options{})
		}
	})
}
