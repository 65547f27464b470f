package coordinator_test

import (
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// Features are set and removed by the root quorum only, and read with the quorum in get_organization_configs.
func TestOrganizationFeatures(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		s.policy("bob may do anything", api.EffectAllow, "true", "approvers.any(user, user.id == '"+bobID+"')")
		res, _, err := s.root.SetOrganizationFeature(bg, org, api.SetOrganizationFeatureIntent{Name: "FEATURE_NAME_WEBAUTHN_ORIGINS", Value: "https://app.example"})
		if err != nil || len(res.Features) != 1 || res.Features[0].Value != "https://app.example" {
			t.Fatalf("set feature: %+v %v", res, err)
		}
		if _, _, err := bob.SetOrganizationFeature(bg, org, api.SetOrganizationFeatureIntent{Name: "FEATURE_NAME_EMAIL_AUTH", Value: "true"}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a feature set by a non-root user even with an allow-all policy: %v, want a denial", err)
		}
		if _, _, err := s.root.SetOrganizationFeature(bg, org, api.SetOrganizationFeatureIntent{Name: "FEATURE_NAME_TELEPORT", Value: "x"}); err == nil || !strings.Contains(err.Error(), "not a FEATURE_NAME_* value") {
			t.Errorf("an unknown feature: %v", err)
		}
		cfg, err := s.root.GetOrganizationConfigs(bg, org)
		if err != nil || len(cfg.Configs.Features) != 1 || cfg.Configs.Quorum.Threshold != 1 || cfg.Configs.Quorum.UserIDs[0] != s.boot.UserID {
			t.Fatalf("get_organization_configs = %+v %v", cfg, err)
		}
		if _, _, err := s.root.RemoveOrganizationFeature(bg, org, "FEATURE_NAME_WEBAUTHN_ORIGINS"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.RemoveOrganizationFeature(bg, org, "FEATURE_NAME_WEBAUTHN_ORIGINS"); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("removing a feature that is not set: %v", err)
		}
	})
}

func TestGetAPIKeyAndAuthenticator(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	keys, err := s.root.GetAPIKeys(bg, org, s.boot.UserID)
	if err != nil || len(keys.APIKeys) == 0 {
		t.Fatal(keys, err)
	}
	got, err := s.root.GetAPIKey(bg, org, keys.APIKeys[0].APIKeyID)
	if err != nil || got.APIKey.Credential.PublicKey != keys.APIKeys[0].Credential.PublicKey {
		t.Fatalf("get_api_key = %+v %v", got, err)
	}
	if _, err := s.root.GetAPIKey(bg, org, "6f3c7a52-2d8e-4b8a-9d55-111111111111"); !client.IsCode(err, apierr.NotFound) {
		t.Errorf("an unknown API key: %v", err)
	}
	if _, err := s.root.GetAuthenticator(bg, org, "nope"); !client.IsCode(err, apierr.InvalidArgument) {
		t.Errorf("a malformed authenticator id: %v", err)
	}
}
