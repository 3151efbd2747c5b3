package files

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file decides whether it is text, as git does:
// a NUL byte in the first 8000 bytes means binary. Text in UTF-8 or any
// ASCII-compatible encoding never holds one; UTF-16 does, and is reported
// as binary, which is better than returning it interleaved with NULs.
const sniffLen = 8000

// looksBinary reports whether data (a file's beginning) holds a NUL byte.
func looksBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0
}

// cutUTF8 returns the longest prefix of b of at most n bytes that does not
// end inside a UTF-8 sequence.
func cutUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	if n <= 0 {
		return b[:0]
	}
	i := n
	// Back up over continuation bytes, at most utf8.UTFMax-1 of them: past
	// that the bytes are not UTF-8 anyway and any cut is as good.
	for j := 0; j < utf8.UTFMax-1 && i > 0 && !utf8.RuneStart(b[i]); j++ {
		i--
	}
	return b[:i]
}

// sum returns the hex SHA-256 of data, the After of a effect.Change.
func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// plural returns "1 line", "2 lines", "3 entries".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok {
		return strconv.Itoa(n) + " " + stem + "ies"
	}
	return strconv.Itoa(n) + " " + word + "s"
}
