package keys

import (
	"os"
	"strings"
	"testing"
)

// docs/CHAINS.md lists every address format with its curves and default path.
func TestChainsDocListsEveryFormat(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CHAINS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range AddressFormats() {
		name := strings.TrimPrefix(string(f.Format), "ADDRESS_FORMAT_")
		row := "| `" + name + "` |"
		i := strings.Index(string(doc), row)
		if i < 0 {
			t.Errorf("docs/CHAINS.md has no row for %s", f.Format)
			continue
		}
		line, _, _ := strings.Cut(string(doc[i:]), "\n")
		if f.DefaultPath != "" && !strings.Contains(line, "`"+f.DefaultPath+"`") {
			t.Errorf("docs/CHAINS.md: %s row does not give the default path %s", f.Format, f.DefaultPath)
		}
	}
}
