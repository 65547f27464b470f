package oidc

import "fmt"

// Issuer identifiers of the providers configured by name.
const (
	GoogleIssuer   = "https://accounts.google.com"
	AppleIssuer    = "https://appleid.apple.com"
	FacebookIssuer = "https://www.facebook.com"
)

// Issuer is one trusted ID-token issuer.
type Issuer struct {
	// URL is the issuer identifier, compared exactly with the token's iss
	// claim. Keys are found through URL + "/.well-known/openid-configuration".
	URL string
	// Aliases are other iss values the issuer signs with (Google still
	// uses "accounts.google.com"). Claims.Issuer is always URL.
	Aliases []string
	// Audiences are the client ids a token may be issued to; one of the
	// token's aud values must be among them.
	Audiences []string
	// AnyAudience accepts every aud value: the caller matches the audience
	// itself. It must be chosen explicitly; an issuer with neither
	// Audiences nor AnyAudience is a configuration error.
	AnyAudience bool
	// JWKSURL, when set, is used instead of the discovery document.
	JWKSURL string
	// JWKS, when set, is a JWKS document used as is: nothing is fetched.
	// It suits an issuer whose keys are at hand, such as our own.
	JWKS []byte
}

// Google is Google's issuer, accepting tokens issued to the given client ids.
func Google(audiences ...string) Issuer {
	return Issuer{URL: GoogleIssuer, Aliases: []string{"accounts.google.com"}, Audiences: audiences}
}

// Apple is Sign in with Apple's issuer, accepting tokens issued to the given
// client ids (app bundle ids or services ids).
func Apple(audiences ...string) Issuer {
	return Issuer{URL: AppleIssuer, Audiences: audiences}
}

// Facebook is Facebook Login's issuer (Limited Login ID tokens), accepting
// tokens issued to the given app ids.
func Facebook(audiences ...string) Issuer {
	return Issuer{URL: FacebookIssuer, Audiences: audiences}
}

func (iss Issuer) validate() error {
	u, err := parseFetchURL(iss.URL)
	if err != nil {
		return fmt.Errorf("issuer %q: %w", iss.URL, err)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("issuer %q: an issuer URL has no query or fragment", iss.URL)
	}
	if len(iss.Audiences) == 0 && !iss.AnyAudience {
		return fmt.Errorf("issuer %q: no audiences; list the accepted client ids or set AnyAudience", iss.URL)
	}
	for _, aud := range iss.Audiences {
		if aud == "" {
			return fmt.Errorf("issuer %q: empty audience", iss.URL)
		}
	}
	if iss.JWKSURL != "" && iss.JWKS != nil {
		return fmt.Errorf("issuer %q: set JWKSURL or JWKS, not both", iss.URL)
	}
	if iss.JWKSURL != "" {
		if _, err := parseFetchURL(iss.JWKSURL); err != nil {
			return fmt.Errorf("issuer %q: JWKS URL: %w", iss.URL, err)
		}
	}
	for _, alias := range iss.Aliases {
		if alias == "" {
			return fmt.Errorf("issuer %q: empty alias", iss.URL)
		}
	}
	return nil
}
