package coordinator_test

import (
	"encoding/base64"
	"errors"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
)

func stdB64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func asActivityError(err error, target **client.ActivityError) bool { return errors.As(err, target) }

func subOrgParams(name string, key api.APIKeyParamsV2) api.CreateSubOrganizationIntentV8 {
	one := int32(1)
	return api.CreateSubOrganizationIntentV8{SubOrganizationName: name, RootQuorumThreshold: &one, RootUsers: []api.RootUserParamsV5{{
		UserName: name + "-root", UserEmail: name + "@example.com", APIKeys: []api.APIKeyParamsV2{key},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{},
	}}}
}
