package analyze

import "strings"

// Stop words are function words that say nothing about what a text is
// about, so BM25 would only spend weight on them. They are written folded
// (no accents, lower case), as the analysis compares them after folding.
// The lists are deliberately short: a content word wrongly listed here can
// never be found, while a function word missing costs only a little noise.
//
// Known collisions, accepted: "comment" (French "how", English "comment")
// and "it" (the pronoun, also "IT") are stop words; "car" (French "because",
// English "car") is not.

// englishStopWords are English function words, with the halves of the
// contractions that splitting leaves ("don't" → "don", "t").
const englishStopWords = `
a about above after again against all also am an and any are aren as at
be because been before being below between both but by
can cannot could couldn did didn do does doesn doing don down during
each either etc even ever every few for from further
had hadn has hasn have haven having he her here hers herself him himself his how however
i if in into is isn it its itself just let ll may me might more most must mustn my myself
neither no nor not now of off on once only or other others ought our ours ourselves out over own
re same shall shan she should shouldn since so some such
than that the their theirs them themselves then there these they this those through thus to too
under until up upon us ve very via was wasn we were weren what when where whether which while who whom whose why will with within without won would wouldn
yet you your yours yourself yourselves
`

// frenchStopWords are French function words, folded, with the elided forms
// that an apostrophe at the end of a text can leave ("jusqu'").
const frenchStopWords = `
a afin ai aie aient aies ainsi ait alors apres as au aucun aucune aupres auquel aura aurai auraient aurais aurait auras aurez auriez aurions aurons auront aussi autre autres aux avaient avais avait avant avec avez aviez avions avoir avons ayant ayez ayons
c ce ceci cela celle celles celui cependant certain certaines certains ces cet cette ceux chaque chez ci comme comment
d dans de depuis des deja doit doivent donc dont du duquel
elle elles en encore entre es est et etaient etais etait etant ete etes etiez etions etre eu eue eues eurent eus eut eux
faut fut furent
hui ici il ils j je jusqu l la laquelle le lequel les lesquelles lesquels leur leurs lorsqu lors lui
m ma mais me meme memes mes moi mon n ne ni nos notre nous
on ont ou par parce parmi pas pendant peu peut peuvent pour pourquoi puis puisqu
qu quand que quel quelle quelles quels qui quoi
s sa sans se selon sera serai seraient serais serait seras serez seriez serions serons seront ses si sien sienne soi soient sois soit sommes son sont sous suis sur
t ta tandis te tes toi ton tous tout toute toutes tres tu
un une unes uns vers via voici voila vos votre vous y aujourd
`

// stopIndex buckets the stop words by length and first letter: a lookup
// compares a word with the few words of its bucket, several times faster
// than hashing it for a map, and analysis looks up every word.
var stopIndex = func() (idx [maxStopLen + 1][26][]string) {
	for _, list := range []string{englishStopWords, frenchStopWords} {
		for _, w := range strings.Fields(list) {
			b := &idx[len(w)][w[0]-'a']
			*b = append(*b, w)
		}
	}
	return idx
}()

// maxStopLen is the length of the longest stop word, in bytes.
const maxStopLen = 10

// isStopWord reports whether the folded word w is a stop word.
func isStopWord(w []byte) bool {
	if len(w) == 0 || len(w) > maxStopLen || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, s := range stopIndex[len(w)][w[0]-'a'] {
		if string(w) == s {
			return true
		}
	}
	return false
}
