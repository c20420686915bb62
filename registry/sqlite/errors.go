package sqlite

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Extended result codes of the constraint violations that the store turns
// into registry errors (https://sqlite.org/rescode.html).
const (
	codePrimaryKey = sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	codeUnique     = sqlite3.SQLITE_CONSTRAINT_UNIQUE
	codeForeignKey = sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
)

// code returns the SQLite extended result code of err: 0 for nil, -1 for an
// error that does not come from SQLite.
func code(err error) int {
	if err == nil {
		return 0
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return -1
}
