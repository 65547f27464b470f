package coordinator

import (
	"slices"
	"sort"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// Organization features (the reference's FEATURE_NAME_*) and configuration: set and removed by the root quorum only,
// read with get_organization_configs beside the root quorum. A sub-organization created with disable* flags holds
// Sigil's own FEATURE_NAME_DISABLE_* features, shown the same way.

const maxFeatureValueLen = 4096

// The activity types of this file.
var (
	setOrganizationFeature = activity(api.SetOrganizationFeature, on(resOrganization, actUpdate),
		validateSetFeature, execSetFeature).rootOnly()
	removeOrganizationFeature = activity(api.RemoveOrganizationFeature, on(resOrganization, actDelete),
		validateRemoveFeature, execRemoveFeature).rootOnly()
)

// The queries of this file.
var (
	getOrganizationConfigs = query(api.GetOrganizationConfigs, queryGetOrganizationConfigs)
	getAPIKey              = query(api.GetAPIKey, queryGetAPIKey)
	getAuthenticator       = query(api.GetAuthenticator, queryGetAuthenticator)
)

func checkFeatureName(name string) error {
	if !slices.Contains(api.FeatureNames, name) {
		return apierr.Invalid("parameters.name: %q is not a FEATURE_NAME_* value", name)
	}
	return nil
}

func validateSetFeature(p *api.SetOrganizationFeatureIntent) error {
	if err := checkFeatureName(p.Name); err != nil {
		return err
	}
	if len(p.Value) > maxFeatureValueLen {
		return apierr.Invalid("parameters.value is longer than %d bytes", maxFeatureValueLen)
	}
	return nil
}

func execSetFeature(x *execution, p *api.SetOrganizationFeatureIntent) (*api.FeaturesResult, error) {
	if x.org.Features == nil {
		x.org.Features = map[string]string{}
	}
	x.org.Features[p.Name] = p.Value
	return &api.FeaturesResult{Features: x.org.featureList()}, nil
}

func validateRemoveFeature(p *api.RemoveOrganizationFeatureIntent) error {
	return checkFeatureName(p.Name)
}

func execRemoveFeature(x *execution, p *api.RemoveOrganizationFeatureIntent) (*api.FeaturesResult, error) {
	if _, ok := x.org.Features[p.Name]; !ok {
		return nil, apierr.NotFoundf("organization %s has no feature %s", x.org.ID, p.Name)
	}
	delete(x.org.Features, p.Name)
	return &api.FeaturesResult{Features: x.org.featureList()}, nil
}

// featureList is the organization's features, by name.
func (o *Org) featureList() []api.Feature {
	out := make([]api.Feature, 0, len(o.Features))
	for name, value := range o.Features {
		out = append(out, api.Feature{Name: name, Value: value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func queryGetOrganizationConfigs(r *reader, _ *api.OrganizationRequest) (*api.GetOrganizationConfigsResponse, error) {
	q := api.Quorum{Threshold: r.org.RootQuorum.Threshold, UserIDs: append([]string{}, r.org.RootQuorum.UserIDs...)}
	return &api.GetOrganizationConfigsResponse{Configs: api.OrganizationConfigs{Features: r.org.featureList(), Quorum: q}}, nil
}

func queryGetAPIKey(r *reader, q *api.GetAPIKeyRequest) (*api.GetAPIKeyResponse, error) {
	if err := checkID("apiKeyId", q.APIKeyID); err != nil {
		return nil, err
	}
	for _, u := range r.org.Users {
		for _, k := range u.APIKeys {
			if k.ID == q.APIKeyID {
				return &api.GetAPIKeyResponse{APIKey: renderAPIKey(k)}, nil
			}
		}
	}
	return nil, apierr.NotFoundf("no API key %s in organization %s", q.APIKeyID, r.org.ID)
}

func queryGetAuthenticator(r *reader, q *api.GetAuthenticatorRequest) (*api.GetAuthenticatorResponse, error) {
	if err := checkID("authenticatorId", q.AuthenticatorID); err != nil {
		return nil, err
	}
	for _, u := range r.org.Users {
		for _, a := range u.Authenticators {
			if a.ID == q.AuthenticatorID {
				return &api.GetAuthenticatorResponse{Authenticator: renderAuthenticator(a)}, nil
			}
		}
	}
	return nil, apierr.NotFoundf("no authenticator %s in organization %s", q.AuthenticatorID, r.org.ID)
}
