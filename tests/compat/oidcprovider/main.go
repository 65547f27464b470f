// Command oidcprovider runs the local OIDC and OAuth 2.0 provider of the conformance tests (package internal/oidc/oidctest)
// on loopback until it is interrupted. It prints its issuer URL as the first line of its output; the tests get ID
// tokens from it through its authorization and token endpoints, as a browser app would.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sigil/sigil/internal/oidc/oidctest"
)

func main() {
	p := oidctest.New()
	defer p.Close()
	fmt.Println(p.Issuer())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
}
