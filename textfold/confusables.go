package textfold

// confusables maps letters of other scripts that look like Latin letters
// to those letters. It is deliberately limited to letters that a reader
// takes for the Latin one in ordinary fonts: a word written with them reads
// as a Latin word, which is what a disguised marking relies on.
var confusables = map[rune]rune{
	// Cyrillic capitals.
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O',
	'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'У': 'Y', 'Ү': 'Y', 'Ѕ': 'S',
	'І': 'I', 'Ӏ': 'I', 'Ј': 'J', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ԁ': 'D',
	// Cyrillic small letters.
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x',
	'ѕ': 's', 'і': 'i', 'ј': 'j', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l', 'ԛ': 'q',
	'ԝ': 'w', 'ү': 'y',
	// Greek capitals.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K',
	'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	'Ϲ': 'C', 'Ϳ': 'J',
	// Greek small letters.
	'ο': 'o', 'ν': 'v', 'ρ': 'p', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'χ': 'x',
	'α': 'a', 'ϲ': 'c', 'ϳ': 'j',
	// Cherokee capitals, which cover most of the Latin alphabet.
	'Ꭰ': 'D', 'Ꭱ': 'R', 'Ꭲ': 'T', 'Ꭺ': 'A', 'Ꭻ': 'J', 'Ꭼ': 'E', 'Ꮃ': 'W',
	'Ꮇ': 'M', 'Ꮋ': 'H', 'Ꮐ': 'G', 'Ꮓ': 'Z', 'Ꮪ': 'S', 'Ꮩ': 'V', 'Ꮮ': 'L',
	'Ꮯ': 'C', 'Ꮲ': 'P', 'Ꮶ': 'K', 'Ᏼ': 'B',
	// Lisu letters, which are Latin capitals turned into a script.
	'ꓐ': 'B', 'ꓑ': 'P', 'ꓓ': 'D', 'ꓔ': 'T', 'ꓖ': 'G', 'ꓗ': 'K', 'ꓙ': 'J',
	'ꓚ': 'C', 'ꓜ': 'Z', 'ꓝ': 'F', 'ꓟ': 'M', 'ꓠ': 'N', 'ꓡ': 'L', 'ꓢ': 'S',
	'ꓣ': 'R', 'ꓦ': 'V', 'ꓧ': 'H', 'ꓪ': 'W', 'ꓫ': 'X', 'ꓬ': 'Y', 'ꓮ': 'A',
	'ꓰ': 'E', 'ꓲ': 'I', 'ꓳ': 'O', 'ꓴ': 'U',
	// Latin letters without a dot or with a different shape.
	'ı': 'i', 'ɑ': 'a', 'ɡ': 'g', 'ǀ': 'l',
}
