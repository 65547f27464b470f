package yield_test

import (
	"github.com/sigil/sigil/internal/chain/devcatalogue"
	"github.com/sigil/sigil/internal/yield"
)

// The tests of package yield run the service on the dev chain's catalogue, which package devcatalogue builds and which
// they cannot import themselves (devcatalogue imports yield); this external test package, compiled into the same test
// binary, can.
func init() { yield.DevCatalogue = devcatalogue.Build }
