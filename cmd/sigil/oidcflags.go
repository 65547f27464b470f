package main

import (
	"flag"
	"fmt"
	"net/url"
	"strings"

	"github.com/sigil/sigil/internal/oidc"
)

// oidcFlags are the OAuth options of sigil up: the OIDC issuers whose ID tokens the coordinator trusts, the issuer URL
// of the tokens it issues itself after an OAuth 2.0 code exchange, and OAuth 2.0 providers beyond X and Discord
// (docs/OAUTH.md).
type oidcFlags struct {
	trusted   []string
	issuerURL string
	providers map[string]oidc.Provider
	// providerSpecs are the --oauth2-provider values as given, for sigil config print.
	providerSpecs []string
}

func (f *oidcFlags) register(fs *flag.FlagSet) {
	fs.Func("trusted-oidc-issuer", "trust ID tokens of an OIDC issuer: google, apple, facebook or an issuer URL, optionally =AUDIENCE[,AUDIENCE...] to accept only those client ids (repeatable)",
		func(v string) error { f.trusted = append(f.trusted, v); return nil })
	fs.StringVar(&f.issuerURL, "oidc-issuer-url", "", "issuer URL of the OIDC tokens the coordinator issues (default: http://LISTEN)")
	fs.Func("oauth2-provider", "add an OAuth 2.0 provider, or replace OAUTH2_PROVIDER_X or _DISCORD: NAME=TOKEN_URL,USERINFO_URL,SUBJECT_FIELD[,post] (client authentication HTTP Basic unless post; repeatable)",
		func(v string) error {
			name, p, err := parseOAuth2Provider(v)
			if err != nil {
				return err
			}
			if f.providers == nil {
				f.providers = map[string]oidc.Provider{}
			}
			f.providers[name] = p
			f.providerSpecs = append(f.providerSpecs, v)
			return nil
		})
}

// parseOAuth2Provider reads NAME=TOKEN_URL,USERINFO_URL,SUBJECT_FIELD[,post]; the client id and secret come from
// each organization's OAuth 2.0 credential.
func parseOAuth2Provider(v string) (string, oidc.Provider, error) {
	name, spec, _ := strings.Cut(v, "=")
	parts := strings.Split(spec, ",")
	if name == "" || len(parts) < 3 || len(parts) > 4 || parts[2] == "" {
		return "", oidc.Provider{}, fmt.Errorf("want NAME=TOKEN_URL,USERINFO_URL,SUBJECT_FIELD[,post], got %q", v)
	}
	p := oidc.Provider{Name: name, TokenURL: parts[0], UserInfoURL: parts[1], SubjectField: parts[2], ClientAuth: oidc.ClientSecretBasic}
	if len(parts) == 4 {
		if parts[3] != "post" {
			return "", oidc.Provider{}, fmt.Errorf("the client authentication of %s is basic (the default) or post, not %q", name, parts[3])
		}
		p.ClientAuth = oidc.ClientSecretPost
	}
	for _, endpoint := range []string{p.TokenURL, p.UserInfoURL} {
		if u, err := url.Parse(endpoint); err != nil || !u.IsAbs() || u.Host == "" {
			return "", oidc.Provider{}, fmt.Errorf("%s: %q is not an absolute URL", name, endpoint)
		}
	}
	return name, p, nil
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
