// Package deptest checks, in the manner of tailscale's tstest/deptest, what the packages others build on link: the
// Go SDK (client and what it is made of) and the pure packages under the server (the policy language, key
// derivation) must not come to depend on a server, a database, metrics, tracing or the dev chain. It asks go list, on
// every platform Sigil builds for, so nothing is compiled.
package deptest
