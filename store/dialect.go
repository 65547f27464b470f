package store

import (
	"strconv"
	"strings"
)

// dialect holds the few places where SQLite and PostgreSQL differ. Queries are written once with `?` placeholders.
type dialect struct {
	name      string
	serialPK  string
	forUpdate string
	dollar    bool // PostgreSQL numbers its placeholders
}

var (
	sqliteDialect   = dialect{name: "sqlite", serialPK: "INTEGER PRIMARY KEY AUTOINCREMENT"}
	postgresDialect = dialect{name: "postgres", serialPK: "BIGSERIAL PRIMARY KEY", forUpdate: " FOR UPDATE", dollar: true}
)

// rebind turns `?` placeholders into `$1, $2, ...` for PostgreSQL. Sigil's queries have no `?` inside literals.
func (d dialect) rebind(q string) string {
	if !d.dollar {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (d dialect) migration(sql string) string {
	return strings.ReplaceAll(sql, "$SERIAL_PK", d.serialPK)
}
