package store

import (
	"strconv"
	"strings"
)

// dialect holds the few places where SQLite and PostgreSQL differ. Queries are written once with `?` placeholders.
type dialect struct {
	name        string
	serialPK    string
	groupConcat string // the string aggregate: group_concat or string_agg, both (expr, separator ORDER BY ...)
	forUpdate   string // the row lock writers take: exclusive
	forShare    string // the row lock readers take: shared with other readers, exclusive of writers
	dollar      bool   // PostgreSQL numbers its placeholders
}

var (
	sqliteDialect   = dialect{name: "sqlite", serialPK: "INTEGER PRIMARY KEY AUTOINCREMENT", groupConcat: "group_concat"}
	postgresDialect = dialect{name: "postgres", serialPK: "BIGSERIAL PRIMARY KEY", groupConcat: "string_agg", forUpdate: " FOR UPDATE", forShare: " FOR SHARE", dollar: true}
)

// indexedBy names the index a query of one table must read, on SQLite: without statistics its planner takes an
// equality on the first column of the primary key for selective, and reads an organization's every row rather than
// the index that finds one. PostgreSQL, which keeps statistics, chooses for itself.
func (d dialect) indexedBy(index string) string {
	if d.name == "sqlite" {
		return " INDEXED BY " + index
	}
	return ""
}

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
	return strings.NewReplacer("$SERIAL_PK", d.serialPK, "$GROUP_CONCAT", d.groupConcat).Replace(sql)
}
