package coordinator

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// The queries of this file.
var (
	whoami              = query(api.Whoami, queryWhoami)
	getActivity         = query(api.GetActivity, queryGetActivity)
	listActivities      = query(api.ListActivities, queryListActivities)
	getUser             = query(api.GetUser, queryGetUser)
	listUsers           = query(api.ListUsers, queryListUsers)
	getAPIKeys          = query(api.GetAPIKeys, queryGetAPIKeys)
	getAuthenticators   = query(api.GetAuthenticators, queryGetAuthenticators)
	listUserTags        = query(api.ListUserTags, queryListUserTags)
	getOrganization     = query(api.GetOrganization, queryGetOrganization)
	listSubOrgs         = query(api.ListSubOrgs, queryListSubOrgs)
	listVerifiedSubOrgs = query(api.ListVerifiedSubOrgs, queryListVerifiedSubOrgs)
)

// reader is an authenticated query: the organization asked about and who asks.
type reader struct {
	ctx context.Context
	c   *Coordinator
	org *Org
	who *principal
}

// authenticateReadOnly authenticates a query by a read-only session (X-Session) instead of a stamp.
func (c *Coordinator) authenticateReadOnly(ctx context.Context, session string, body []byte) (*reader, error) {
	org, err := c.loadOrg(ctx, bodyOrgID(body))
	if errors.Is(err, errBadOrgID) || errors.Is(err, errOrgNotFound) {
		return nil, apierr.Unauth("UNAUTHENTICATED", "X-Session is not a valid read-only session for this organization")
	}
	if err != nil {
		return nil, err
	}
	who, err := c.readOnlySession(ctx, org, session)
	if err != nil {
		return nil, err
	}
	if err := c.admit(ctx, org, who.PublicKey); err != nil {
		return nil, err
	}
	return &reader{ctx: ctx, c: c, org: org, who: who}, nil
}

// unimplemented answers a path of the reference's API that Sigil does not serve (api.Unimplemented). It depends on the
// path alone, which says nothing about any organization, so it is answered before the request is authenticated, as an
// unknown route is.
func unimplemented(route string, f *api.UnimplementedFamily) error {
	return apierr.New(apierr.Unimplemented, "UNIMPLEMENTED", "%s is not implemented by Sigil (%s: %s)", route, f.Name, f.Why)
}

// stampSent reports whether a request carries any stamp header.
func stampSent(h http.Header) bool {
	return h.Get("X-Stamp") != "" || h.Get("X-Stamp-WebAuthn") != "" || h.Get("X-Stamp-Attested") != ""
}

// Query runs one query (the body of POST /public/v1/query/<path>).
func (c *Coordinator) Query(ctx context.Context, path string, header http.Header, body []byte) (any, error) {
	q, ok := c.ops.queries[path]
	if !ok {
		if f := api.UnimplementedQuery(path); f != nil {
			return nil, unimplemented("/public/v1/query/"+path, f)
		}
		return nil, apierr.NotFoundf("unknown query %q", path)
	}
	return q.serve(ctx, c, header, body)
}

// authenticateQuery verifies a query's stamp over the exact body and finds its credential in the organization the
// body names or in its parent, before anything else of the body is decoded.
func (c *Coordinator) authenticateQuery(ctx context.Context, header http.Header, body []byte) (*reader, error) {
	st, err := stamp.FromHeaders(header)
	if session := header.Get("X-Session"); err != nil && session != "" && !stampSent(header) {
		return c.authenticateReadOnly(ctx, session, body)
	}
	if err != nil {
		return nil, stampError(err)
	}
	if err := verifyStamp(st, body); err != nil {
		return nil, err
	}
	org, err := c.requestOrg(ctx, st, body)
	if err != nil {
		return nil, err
	}
	who, err := c.authenticate(ctx, org, st, body)
	if err != nil {
		return nil, err
	}
	return &reader{ctx: ctx, c: c, org: org, who: who}, nil
}

func queryWhoami(r *reader, _ *api.OrganizationRequest) (*api.WhoamiResponse, error) {
	return &api.WhoamiResponse{OrganizationID: r.who.Org.ID, OrganizationName: r.who.Org.Name,
		UserID: r.who.User.ID, Username: r.who.User.Name}, nil
}

// activity reads one of the organization's activities; another organization's is not found.
func (r *reader) activity(id string) (*record, error) {
	if err := checkID("activityId", id); err != nil {
		return nil, err
	}
	row, err := r.c.store.ActivityByID(r.ctx, r.org.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no activity %s in organization %s", id, r.org.ID)
	}
	if err != nil {
		return nil, err
	}
	return r.c.decodeRecord(row)
}

func queryGetActivity(r *reader, q *api.GetActivityRequest) (*api.ActivityResponse, error) {
	rec, err := r.activity(q.ActivityID)
	if err != nil {
		return nil, err
	}
	return &api.ActivityResponse{Activity: rec.render(r.who.User.ID)}, nil
}

// pageLimit parses a pagination limit: "1" to "100", default 10.
func pageLimit(p *api.Pagination) (limit int, after, before string, err error) {
	if p == nil {
		return 10, "", "", nil
	}
	limit = 10
	if p.Limit != "" {
		limit, err = strconv.Atoi(p.Limit)
		if err != nil || limit < 1 || limit > 100 {
			return 0, "", "", apierr.Invalid("paginationOptions.limit must be a whole number from 1 to 100, got %q", p.Limit)
		}
	}
	if p.After != "" && p.Before != "" {
		return 0, "", "", apierr.Invalid("paginationOptions: give before or after, not both")
	}
	return limit, p.After, p.Before, nil
}

var activityStatuses = []string{api.StatusCreated, api.StatusPending, api.StatusCompleted, api.StatusFailed,
	api.StatusConsensusNeeded, api.StatusRejected, api.StatusAuthenticatorsNeeded}

func queryListActivities(r *reader, q *api.ListActivitiesRequest) (*api.ListActivitiesResponse, error) {
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	for i, s := range q.FilterByStatus {
		if !slices.Contains(activityStatuses, s) {
			return nil, apierr.Invalid("filterByStatus[%d]: %q is not an ACTIVITY_STATUS_* value", i, s)
		}
	}
	for i, t := range q.FilterByType {
		if !strings.HasPrefix(t, "ACTIVITY_TYPE_") {
			return nil, apierr.Invalid("filterByType[%d]: %q is not an ACTIVITY_TYPE_* value", i, t)
		}
	}
	for _, cursor := range []string{after, before} {
		if cursor != "" {
			if err := checkID("paginationOptions cursor", cursor); err != nil {
				return nil, err
			}
		}
	}
	rows, err := r.c.store.ListActivities(r.ctx, store.ActivityPage{OrgID: r.org.ID, Statuses: q.FilterByStatus,
		Types: q.FilterByType, After: after, Before: before, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := &api.ListActivitiesResponse{Activities: []api.Activity{}}
	for _, row := range rows {
		rec, err := r.c.decodeRecord(row)
		if err != nil {
			return nil, err
		}
		out.Activities = append(out.Activities, rec.render(r.who.User.ID))
	}
	return out, nil
}

func (r *reader) user(id string) (*User, error) {
	if err := checkID("userId", id); err != nil {
		return nil, err
	}
	if u := r.org.User(id); u != nil {
		return u, nil
	}
	return nil, apierr.NotFoundf("user %s not found in organization %s", id, r.org.ID)
}

func queryGetUser(r *reader, q *api.GetUserRequest) (*api.GetUserResponse, error) {
	u, err := r.user(q.UserID)
	if err != nil {
		return nil, err
	}
	return &api.GetUserResponse{User: renderUser(u)}, nil
}

func queryListUsers(r *reader, _ *api.OrganizationRequest) (*api.ListUsersResponse, error) {
	out := &api.ListUsersResponse{Users: []api.User{}}
	for _, u := range r.org.Users {
		out.Users = append(out.Users, renderUser(u))
	}
	return out, nil
}

// queryGetAPIKeys lists a user's API keys; without userId, the caller's own (when the caller is a user of this
// organization) or every key of the organization (when a parent organization asks).
func queryGetAPIKeys(r *reader, q *api.GetAPIKeysRequest) (*api.GetAPIKeysResponse, error) {
	var users []*User
	switch {
	case q.UserID != "":
		u, err := r.user(q.UserID)
		if err != nil {
			return nil, err
		}
		users = []*User{u}
	case r.who.ViaParent:
		users = r.org.Users
	default:
		users = []*User{r.who.User}
	}
	out := &api.GetAPIKeysResponse{APIKeys: []api.APIKey{}}
	for _, u := range users {
		for _, k := range u.APIKeys {
			out.APIKeys = append(out.APIKeys, renderAPIKey(k))
		}
	}
	return out, nil
}

func queryGetAuthenticators(r *reader, q *api.GetAuthenticatorsRequest) (*api.GetAuthenticatorsResponse, error) {
	u, err := r.user(q.UserID)
	if err != nil {
		return nil, err
	}
	out := &api.GetAuthenticatorsResponse{Authenticators: []api.Authenticator{}}
	for _, a := range u.Authenticators {
		out.Authenticators = append(out.Authenticators, renderAuthenticator(a))
	}
	return out, nil
}

func queryListUserTags(r *reader, _ *api.OrganizationRequest) (*api.ListUserTagsResponse, error) {
	out := &api.ListUserTagsResponse{UserTags: []api.Tag{}}
	for _, t := range r.org.Tags {
		out.UserTags = append(out.UserTags, renderTag(t))
	}
	return out, nil
}

func queryGetOrganization(r *reader, _ *api.OrganizationRequest) (*api.GetOrganizationResponse, error) {
	data := renderOrg(r.org)
	sort.Slice(data.Features, func(i, j int) bool { return data.Features[i].Name < data.Features[j].Name })
	return &api.GetOrganizationResponse{OrganizationData: data}, nil
}

// subOrgFilters maps list_suborgs filter types to index kinds and normalizes their values.
var subOrgFilters = map[string]struct {
	kind      string
	normalize func(string) (string, error)
}{
	api.FilterName:          {indexName, keep},
	api.FilterUsername:      {indexUsername, keep},
	api.FilterEmail:         {indexEmail, func(v string) (string, error) { return strings.ToLower(v), nil }},
	api.FilterPhoneNumber:   {indexPhone, keep},
	api.FilterPublicKey:     {indexPublicKey, func(v string) (string, error) { return strings.ToLower(v), nil }},
	api.FilterCredentialID:  {indexCredentialID, keep},
	api.FilterWalletAddress: {indexAddress, func(v string) (string, error) { return addressKey(v), nil }},
	api.FilterOIDCToken:     {indexOIDC, nil}, // the token is verified: reader.oidcFilterValue
}

func keep(v string) (string, error) { return v, nil }

// queryListVerifiedSubOrgs is list_suborgs by a contact the sub-organization's user has proved to own: the look-up a
// login by e-mail or phone must use, so that an account someone else created with that contact is never chosen.
func queryListVerifiedSubOrgs(r *reader, q *api.ListSubOrgsRequest) (*api.ListSubOrgsResponse, error) {
	kinds := map[string]string{api.FilterEmail: indexVerifiedEmail, api.FilterPhoneNumber: indexVerifiedPhone}
	if _, ok := kinds[q.FilterType]; !ok {
		return nil, apierr.Invalid("filterType must be EMAIL or PHONE_NUMBER, got %q", q.FilterType)
	}
	return subOrgs(r, q, kinds)
}

func queryListSubOrgs(r *reader, q *api.ListSubOrgsRequest) (*api.ListSubOrgsResponse, error) {
	kinds := map[string]string{}
	for name, f := range subOrgFilters {
		kinds[name] = f.kind
	}
	return subOrgs(r, q, kinds)
}

// listSubOrgs lists the caller's sub-organizations, filtered by a filter type mapped to an index kind.
func subOrgs(r *reader, q *api.ListSubOrgsRequest, kinds map[string]string) (*api.ListSubOrgsResponse, error) {
	if r.who.ViaParent {
		return nil, apierr.Denied("list_suborgs lists the sub-organizations of the caller's own organization")
	}
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	page := store.SubOrgPage{ParentID: r.org.ID, After: after, Before: before, Limit: limit}
	if q.FilterType != "" {
		f, ok := subOrgFilters[q.FilterType]
		if _, allowed := kinds[q.FilterType]; !ok || !allowed {
			return nil, apierr.Invalid("filterType %q is not supported; use one of NAME, USERNAME, EMAIL, PHONE_NUMBER, PUBLIC_KEY, CREDENTIAL_ID, OIDC_TOKEN, WALLET_ACCOUNT_ADDRESS", q.FilterType)
		}
		if q.FilterValue == "" {
			return nil, apierr.Invalid("filterValue is required with filterType %s", q.FilterType)
		}
		if f.normalize == nil {
			page.Value, err = r.oidcFilterValue(q.FilterValue)
		} else {
			page.Value, err = f.normalize(q.FilterValue)
		}
		if err != nil {
			return nil, err
		}
		page.Kind = kinds[q.FilterType]
		if page.Kind == indexAddress {
			page.AccountAddressKey = page.Value // a wallet account's, or a private key's (indexed with the document)
		}
	}
	ids, err := r.c.store.ListSubOrgs(r.ctx, page)
	if err != nil {
		return nil, err
	}
	return &api.ListSubOrgsResponse{OrganizationIDs: ids}, nil
}
