package store

import "testing"

// A version has one migration for both backends, or one for each; the embedded ones follow the rule.
func TestMigrationDialects(t *testing.T) {
	t.Parallel()
	shared := migration{version: 1}
	lite := migration{version: 2, dialect: "sqlite"}
	pg := migration{version: 2, dialect: "postgres"}
	for _, c := range []struct {
		name string
		ms   []migration
		ok   bool
	}{
		{"shared", []migration{shared}, true},
		{"one of each", []migration{shared, lite, pg}, true},
		{"sqlite only", []migration{lite}, false},
		{"twice sqlite", []migration{lite, lite}, false},
		{"shared and sqlite", []migration{{version: 2}, lite}, false},
		{"two shared", []migration{shared, shared}, false},
	} {
		if err := checkDialects(c.ms); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	all, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	dialects := map[string]int{}
	for _, m := range all {
		dialects[m.dialect]++
	}
	if dialects["sqlite"] == 0 || dialects["sqlite"] != dialects["postgres"] {
		t.Fatalf("embedded migrations by dialect: %v", dialects)
	}
}
