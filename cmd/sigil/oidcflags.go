package main

import (
	"flag"
	"fmt"
	"net/url"
	"strings"

	"sigil/oidc"
)

// oidcFlags are the OAuth options of sigil up: the OIDC issuers whose ID tokens the coordinator trusts, and the
// issuer URL of the tokens it issues itself after an OAuth 2.0 code exchange (docs/OAUTH.md).
type oidcFlags struct {
	trusted   []string
	issuerURL string
}

func (f *oidcFlags) register(fs *flag.FlagSet) {
	fs.Func("trusted-oidc-issuer", "trust ID tokens of an OIDC issuer: google, apple, facebook or an issuer URL, optionally =AUDIENCE[,AUDIENCE...] to accept only those client ids (repeatable)",
		func(v string) error { f.trusted = append(f.trusted, v); return nil })
	fs.StringVar(&f.issuerURL, "oidc-issuer-url", "", "issuer URL of the OIDC tokens the coordinator issues (default: http://LISTEN)")
}

// verifier builds the verifier of the trusted issuers; nil when none is configured.
func (f *oidcFlags) verifier() (*oidc.Verifier, error) {
	if len(f.trusted) == 0 {
		return nil, nil
	}
	issuers := make([]oidc.Issuer, 0, len(f.trusted))
	for _, v := range f.trusted {
		iss, err := parseTrustedIssuer(v)
		if err != nil {
			return nil, fmt.Errorf("--trusted-oidc-issuer %q: %w", v, err)
		}
		issuers = append(issuers, iss)
	}
	return oidc.NewVerifier(oidc.Config{Issuers: issuers})
}

// parseTrustedIssuer reads NAME_OR_URL[=AUDIENCE,...]. Without audiences any is accepted: logins still match the
// audience stored with the user's identity.
func parseTrustedIssuer(v string) (oidc.Issuer, error) {
	name, auds, _ := strings.Cut(v, "=")
	var iss oidc.Issuer
	switch strings.ToLower(name) {
	case "google":
		iss = oidc.Google()
	case "apple":
		iss = oidc.Apple()
	case "facebook":
		iss = oidc.Facebook()
	default:
		u, err := url.Parse(name)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return oidc.Issuer{}, fmt.Errorf("not google, apple, facebook or an absolute issuer URL")
		}
		iss = oidc.Issuer{URL: name}
	}
	if auds == "" {
		iss.AnyAudience = true
	} else {
		iss.Audiences = strings.Split(auds, ",")
	}
	return iss, nil
}
