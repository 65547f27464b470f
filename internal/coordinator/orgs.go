package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// The activity types of this file.
var (
	createSubOrganizationV7 = keyed(api.CreateSubOrganizationV7, on(resOrganization, actCreate), validateCreateSubOrgV7, aheadSubOrgV7, execCreateSubOrgV7).proxied()
	createSubOrganizationV8 = keyed(api.CreateSubOrganizationV8, on(resOrganization, actCreate), validateCreateSubOrgV8, aheadSubOrgV8, execCreateSubOrgV8).proxied()
	deleteSubOrganization   = activity(api.DeleteSubOrganization, on(resOrganization, actDelete), nil, execDeleteSubOrg)
	updateRootQuorum        = activity(api.UpdateRootQuorum, on(resOrganization, actUpdate), validateUpdateRootQuorum, execUpdateRootQuorum).rootOnly()
	updateOrganizationName  = activity(api.UpdateOrganizationName, on(resOrganization, actUpdate), validateUpdateOrgName, execUpdateOrgName).rootOnly()
)

// subOrgSpec is a sub-organization to create, whatever version of the parameters described it.
type subOrgSpec struct {
	Name      string
	Wallet    *api.WalletParams
	RootUsers []userSpec
	Threshold *int32
	Features  map[string]bool
	Signup    signupToken // the verification token of a signup (signup.go)
}

func subOrgV7(p *api.CreateSubOrganizationIntentV7) subOrgSpec {
	s := subOrgSpec{Name: p.SubOrganizationName, Threshold: p.RootQuorumThreshold, Wallet: p.Wallet}
	for i, u := range p.RootUsers {
		s.RootUsers = append(s.RootUsers, userSpec{path: fmt.Sprintf("parameters.rootUsers[%d]", i), Name: u.UserName,
			Email: u.UserEmail, Phone: u.UserPhoneNumber, APIKeys: u.APIKeys, Authenticators: u.Authenticators,
			OAuth: oauthV1(u.OauthProviders)})
	}
	s.Features = features(p.DisableEmailRecovery, p.DisableEmailAuth, p.DisableSmsAuth, p.DisableOtpEmailAuth)
	s.Signup = signupTokenV7(p)
	return s
}

func subOrgV8(p *api.CreateSubOrganizationIntentV8) subOrgSpec {
	s := subOrgSpec{Name: p.SubOrganizationName, Threshold: p.RootQuorumThreshold, Wallet: p.Wallet}
	for i, u := range p.RootUsers {
		s.RootUsers = append(s.RootUsers, userSpec{path: fmt.Sprintf("parameters.rootUsers[%d]", i), Name: u.UserName,
			Email: u.UserEmail, Phone: u.UserPhoneNumber, APIKeys: u.APIKeys, Authenticators: u.Authenticators,
			OAuth: oauthV2(u.OauthProviders)})
	}
	s.Features = features(p.DisableEmailRecovery, p.DisableEmailAuth, p.DisableSmsAuth, p.DisableOtpEmailAuth)
	s.Signup = signupTokenV8(p)
	return s
}

// features records the sub-organization's disabled login methods as organization features.
func features(emailRecovery, emailAuth, smsAuth, otpEmailAuth *bool) map[string]bool {
	m := map[string]bool{}
	for name, v := range map[string]*bool{
		"FEATURE_NAME_DISABLE_EMAIL_RECOVERY": emailRecovery, "FEATURE_NAME_DISABLE_EMAIL_AUTH": emailAuth,
		"FEATURE_NAME_DISABLE_SMS_AUTH": smsAuth, "FEATURE_NAME_DISABLE_OTP_EMAIL_AUTH": otpEmailAuth,
	} {
		if v != nil && *v {
			m[name] = true
		}
	}
	return m
}

func validateSubOrg(s subOrgSpec) error {
	if err := checkName("parameters.subOrganizationName", s.Name); err != nil {
		return err
	}
	if err := s.Signup.validate(); err != nil {
		return err
	}
	if len(s.RootUsers) == 0 || len(s.RootUsers) > maxItemsPerCall {
		return apierr.Invalid("parameters.rootUsers must list between 1 and %d users", maxItemsPerCall)
	}
	for _, u := range s.RootUsers {
		if err := checkUserSpec(u); err != nil {
			return err
		}
	}
	if t := *s.Threshold; t < 1 || int(t) > len(s.RootUsers) {
		return apierr.Invalid("parameters.rootQuorumThreshold must be between 1 and the number of root users (%d), got %d", len(s.RootUsers), t)
	}
	if w := s.Wallet; w != nil {
		if err := checkName("parameters.wallet.walletName", w.WalletName); err != nil {
			return err
		}
		if _, err := checkMnemonicLength("parameters.wallet.mnemonicLength", w.MnemonicLength); err != nil {
			return err
		}
		return checkAccounts("parameters.wallet.accounts", w.Accounts)
	}
	return nil
}

func validateCreateSubOrgV7(p *api.CreateSubOrganizationIntentV7) error {
	return validateSubOrg(subOrgV7(p))
}
func validateCreateSubOrgV8(p *api.CreateSubOrganizationIntentV8) error {
	return validateSubOrg(subOrgV8(p))
}

func aheadSubOrgV7(x *execution, p *api.CreateSubOrganizationIntentV7) *walletKeys {
	return subOrgWalletKeys(x, subOrgV7(p))
}
func aheadSubOrgV8(x *execution, p *api.CreateSubOrganizationIntentV8) *walletKeys {
	return subOrgWalletKeys(x, subOrgV8(p))
}

// subOrgWalletKeys makes the keys of the sub-organization's wallet, if it has one, before the transaction.
func subOrgWalletKeys(x *execution, s subOrgSpec) *walletKeys {
	if s.Wallet == nil {
		return nil
	}
	k, _ := x.newWalletKeys(*s.Wallet)
	return k
}

func execCreateSubOrgV7(x *execution, p *api.CreateSubOrganizationIntentV7, k *walletKeys) (*api.CreateSubOrganizationResult, error) {
	return x.createSubOrg(subOrgV7(p), k)
}

func execCreateSubOrgV8(x *execution, p *api.CreateSubOrganizationIntentV8, k *walletKeys) (*api.CreateSubOrganizationResult, error) {
	return x.createSubOrg(subOrgV8(p), k)
}

// createSubOrg creates a sub-organization of the execution's organization, with its wallet's keys made ahead (k) or
// now. Sub-organizations do not nest: a sub-organization cannot have sub-organizations of its own.
func (x *execution) createSubOrg(s subOrgSpec, k *walletKeys) (*api.CreateSubOrganizationResult, error) {
	if x.org.ParentID != "" {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "a sub-organization cannot create sub-organizations of its own")
	}
	sub := &Org{ID: newID(), Name: s.Name, ParentID: x.org.ID, Users: []*User{}, Tags: []*Tag{},
		RootQuorum: Quorum{UserIDs: []string{}, Threshold: *s.Threshold}, CreatedAt: x.now, UpdatedAt: x.now, version: 1}
	if len(s.Features) > 0 {
		sub.Features = map[string]string{}
		for name := range s.Features {
			sub.Features[name] = "true"
		}
	}
	res := &api.CreateSubOrganizationResult{SubOrganizationID: sub.ID, RootUserIDs: []string{}}
	for _, u := range s.RootUsers {
		user, err := x.addUser(sub, u)
		if err != nil {
			return nil, err
		}
		sub.RootQuorum.UserIDs = append(sub.RootQuorum.UserIDs, user.ID)
		res.RootUserIDs = append(res.RootUserIDs, user.ID)
	}
	if err := s.Signup.apply(x, sub); err != nil {
		return nil, err
	}
	if s.Wallet != nil {
		w, err := x.createWallet(sub, *s.Wallet, k)
		if err != nil {
			return nil, err
		}
		res.Wallet = &api.WalletResult{WalletID: w.WalletID, Addresses: w.Addresses}
	}
	x.created = append(x.created, sub)
	return res, nil
}

func execDeleteSubOrg(x *execution, p *api.DeleteSubOrganizationIntent) (*api.DeleteSubOrganizationResult, error) {
	if x.org.ParentID == "" {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "organization %s is not a sub-organization; only sub-organizations can be deleted", x.org.ID)
	}
	x.deleted = true
	if err := x.tx.DeleteOrgSecrets(x.ctx, x.org.ID); err != nil {
		return nil, err
	}
	return &api.DeleteSubOrganizationResult{SubOrganizationUUID: x.org.ID}, nil
}

func validateUpdateRootQuorum(p *api.UpdateRootQuorumIntent) error {
	if err := checkIDs("parameters.userIds", p.UserIDs, false); err != nil {
		return err
	}
	if t := *p.Threshold; t < 1 || int(t) > len(p.UserIDs) {
		return apierr.Invalid("parameters.threshold must be between 1 and the number of users (%d), got %d", len(p.UserIDs), t)
	}
	return nil
}

func execUpdateRootQuorum(x *execution, p *api.UpdateRootQuorumIntent) (*api.UpdateRootQuorumResult, error) {
	for _, id := range p.UserIDs {
		u, err := x.user(id)
		if err != nil {
			return nil, err
		}
		if len(u.APIKeys) == 0 && len(u.Authenticators) == 0 {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "user %s has no credential and could never approve as a root user", id)
		}
	}
	x.org.RootQuorum = Quorum{UserIDs: slices.Clone(p.UserIDs), Threshold: *p.Threshold}
	return &api.UpdateRootQuorumResult{}, nil
}

func validateUpdateOrgName(p *api.UpdateOrganizationNameIntent) error {
	return checkName("parameters.organizationName", p.OrganizationName)
}

func execUpdateOrgName(x *execution, p *api.UpdateOrganizationNameIntent) (*api.UpdateOrganizationNameResult, error) {
	x.org.Name = p.OrganizationName
	return &api.UpdateOrganizationNameResult{OrganizationID: x.org.ID, OrganizationName: x.org.Name}, nil
}

// Bootstrap is what the first start of a stack creates: a root organization with one root user and its API key.
type Bootstrap struct {
	OrganizationID string
	UserID         string
	APIKey         *stamp.APIKey
}

// RootExistsError is CreateFirstRootOrganization's answer when the database has its root organization already.
type RootExistsError struct{ OrganizationID string }

func (e *RootExistsError) Error() string {
	return fmt.Sprintf("the database already has its root organization %s", e.OrganizationID)
}

// CreateFirstRootOrganization is CreateRootOrganization for the start of an installation: it creates the root
// organization only if the database has none (processes starting at once over one database create one between them),
// and otherwise answers *RootExistsError.
func (c *Coordinator) CreateFirstRootOrganization(ctx context.Context, orgName, userName string) (*Bootstrap, error) {
	return c.createRoot(ctx, orgName, userName, true)
}

// CreateRootOrganization creates a root organization whose only root user holds a new P-256 API key. It is how an
// installation begins; everything after it goes through activities.
func (c *Coordinator) CreateRootOrganization(ctx context.Context, orgName, userName string) (*Bootstrap, error) {
	return c.createRoot(ctx, orgName, userName, false)
}

func (c *Coordinator) createRoot(ctx context.Context, orgName, userName string, onlyFirst bool) (*Bootstrap, error) {
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return nil, err
	}
	now := c.now()
	x := &execution{ctx: ctx, now: now}
	org := &Org{ID: newID(), Name: orgName, Users: []*User{}, Tags: []*Tag{}, CreatedAt: now, UpdatedAt: now, version: 1}
	user, err := x.addUser(org, userSpec{path: "bootstrap", Name: userName, APIKeys: []api.APIKeyParamsV2{{
		APIKeyName: "bootstrap", PublicKey: key.PublicKeyHex(), CurveType: api.CurveP256}}})
	if err != nil {
		return nil, err
	}
	org.RootQuorum = Quorum{UserIDs: []string{user.ID}, Threshold: 1}
	row, err := org.row()
	if err != nil {
		return nil, err
	}
	err = c.store.Write(ctx, func(tx *store.Tx) error {
		if onlyFirst {
			existing, err := tx.FirstRootOrg(ctx)
			if err == nil {
				return &RootExistsError{OrganizationID: existing}
			}
			if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		return tx.InsertOrg(ctx, row, org.indexEntries())
	})
	if err != nil {
		return nil, err
	}
	return &Bootstrap{OrganizationID: org.ID, UserID: user.ID, APIKey: key}, nil
}
