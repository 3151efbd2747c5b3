package data

import (
	"fmt"
	"strings"
	"sync"

	"modernc.org/sqlite"
)

// guard is the authorizer of a query connection: SQLite asks it about
// every operation of a statement while compiling it, so what it refuses
// never runs, however the SQL is written. It allows reading and nothing
// else, and remembers what it refused so that the model is told why.
type guard struct {
	mu      sync.Mutex
	refused string
}

// deniedFunctions are read-only in name only.
var deniedFunctions = map[string]bool{
	"load_extension": true, // runs native code from a file
}

func (g *guard) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		if !deniedFunctions[strings.ToLower(arg2)] {
			return sqlite.AuthorizerOK
		}
		g.refuse("the function " + arg2 + "()")
	default:
		g.refuse(describe(action, arg1))
	}
	return sqlite.AuthorizerDeny
}

// refuse records the first refusal of a statement: SQLite stops
// compiling at it.
func (g *guard) refuse(what string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == "" {
		g.refused = what
	}
}

// take returns what was refused since the last take, and forgets it.
func (g *guard) take() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.refused
	g.refused = ""
	return r
}

// describe names a refused operation for the model.
func describe(action sqlite.AuthorizerActionCode, arg1 string) string {
	// CREATE and DROP are first asked as writes to the schema table.
	if strings.HasPrefix(arg1, "sqlite_") && strings.HasSuffix(arg1, "master") {
		return "a change of the schema (CREATE, DROP or ALTER)"
	}
	switch action {
	case sqlite.AuthInsert:
		return "INSERT (writing to " + arg1 + ")"
	case sqlite.AuthUpdate:
		return "UPDATE (writing to " + arg1 + ")"
	case sqlite.AuthDelete:
		return "DELETE (writing to " + arg1 + ")"
	case sqlite.AuthPragma:
		return "PRAGMA " + arg1
	case sqlite.AuthAttach:
		return "ATTACH"
	case sqlite.AuthDetach:
		return "DETACH"
	case sqlite.AuthTransaction, sqlite.AuthSavepoint:
		return "a transaction statement"
	case sqlite.AuthCreateTable, sqlite.AuthCreateTempTable, sqlite.AuthCreateView, sqlite.AuthCreateTempView,
		sqlite.AuthCreateIndex, sqlite.AuthCreateTempIndex, sqlite.AuthCreateTrigger, sqlite.AuthCreateTempTrigger,
		sqlite.AuthCreateVTable:
		return "CREATE"
	case sqlite.AuthDropTable, sqlite.AuthDropTempTable, sqlite.AuthDropView, sqlite.AuthDropTempView,
		sqlite.AuthDropIndex, sqlite.AuthDropTempIndex, sqlite.AuthDropTrigger, sqlite.AuthDropTempTrigger,
		sqlite.AuthDropVTable:
		return "DROP"
	case sqlite.AuthAlterTable:
		return "ALTER TABLE"
	}
	return fmt.Sprintf("operation %d", action)
}

// singleStatement returns the one statement sql holds, without a final
// semicolon, or an error when it holds none or more than one. Splitting
// is not the safety boundary (the authorizer is): it gives the model a
// clear answer instead of running part of a script.
func singleStatement(sql string) (string, error) {
	end := statementEnd(sql)
	stmt := strings.TrimSpace(sql[:end])
	if rest := sql[end:]; end < len(sql) && !onlyNoise(rest[1:]) {
		return "", fmt.Errorf("only one SQL statement may run per call; this SQL holds several (separated by ';'): send each in its own data_analysis call")
	}
	if onlyNoise(stmt) {
		return "", fmt.Errorf("the SQL is empty: send one SELECT on table %s", TableName)
	}
	return stmt, nil
}

// statementEnd is the index of the first ';' outside strings, quoted
// identifiers and comments, or len(sql).
func statementEnd(sql string) int {
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; c {
		case ';':
			return i
		case '\'', '"', '`':
			i = skipQuoted(sql, i, c)
		case '[':
			i = skipQuoted(sql, i, ']')
		case '-':
			if strings.HasPrefix(sql[i:], "--") {
				if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
					i += j
				} else {
					i = len(sql)
				}
			}
		case '/':
			if strings.HasPrefix(sql[i:], "/*") {
				if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					i = len(sql)
				}
			}
		}
	}
	return len(sql)
}

// skipQuoted returns the index of the quote closing the one at i (a
// doubled quote is part of the text), or len(sql)-1.
func skipQuoted(sql string, i int, closing byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == closing {
			if closing != ']' && j+1 < len(sql) && sql[j+1] == closing {
				j++
				continue
			}
			return j
		}
	}
	return len(sql) - 1
}

// onlyNoise reports text with nothing but spaces, semicolons and comments.
func onlyNoise(s string) bool {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f;")
		switch {
		case s == "":
			return true
		case strings.HasPrefix(s, "--"):
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return true
			}
			s = s[j:]
		case strings.HasPrefix(s, "/*"):
			j := strings.Index(s, "*/")
			if j < 0 {
				return true
			}
			s = s[j+2:]
		default:
			return false
		}
	}
}
