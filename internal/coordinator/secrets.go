package coordinator

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// The Secrets API. A secret comes in as wallets do: INIT_IMPORT_SECRETS makes one-time P-256 keys for the caller (their
// private halves sealed, their public halves signed in target bundles), the client encrypts each secret to one of them
// (@turnkey/crypto's encryptSecretToBundle), and IMPORT_SECRETS opens it with that key, which it destroys, and seals the
// secret under the master key. EXPORT_SECRETS, once the policies allow it, encrypts each secret to the key the
// request names, with a fresh ephemeral sender key each time (bundle.Seal), and signs the result as an export bundle
// (decryptSecretBundle opens it). A secret's name and static properties are bound to it at import and are what
// policies read of it (secret.id, secret.name, secret.static_properties['k']); a batch is decided once per secret and
// allowed only when every secret is, then carried out whole or not at all. The secrets are rows of their own table
// (store.OrgSecret), not part of the organization document.

// resSecret is activity.resource of the Secrets API's activity types.
const resSecret = "SECRET"

// The activity types and the query of this file.
var (
	initImportSecrets = activity(api.InitImportSecrets, on(resSecret, actImport), validateInitImportSecrets, execInitImportSecrets)
	importSecrets     = prepared(api.ImportSecrets, on(resSecret, actImport), validateImportSecrets, prepareImportSecrets, execImportSecrets)
	exportSecrets     = prepared(api.ExportSecrets, on(resSecret, actExport), validateExportSecrets, prepareExportSecrets, execExportSecrets)
	deleteSecrets     = prepared(api.DeleteSecrets, on(resSecret, actDelete, policy.ParamSecretIDs), validateDeleteSecrets, prepareDeleteSecrets, execDeleteSecrets)

	listSecrets = query(api.ListSecrets, queryListSecrets)
)

// Limits of the Secrets API.
const (
	maxSecretsPerActivity = 32       // secrets one activity imports, exports or deletes; keys one INIT_IMPORT_SECRETS makes
	maxSecretBytes        = 16 << 10 // a secret's value, in bytes
	maxSecretProperties   = 32       // static properties of a secret, or request context entries of an export
	maxPropertyKeyLen     = 64
)

func validateInitImportSecrets(p *api.InitImportSecretsIntent) error {
	if err := checkSuite("parameters.encryptionSuite", p.EncryptionSuite); err != nil {
		return err
	}
	if p.NumSecrets < 1 || p.NumSecrets > maxSecretsPerActivity {
		return apierr.Invalid("parameters.numSecrets must be from 1 to %d, got %d", maxSecretsPerActivity, p.NumSecrets)
	}
	return nil
}

func checkSuite(path, suite string) error {
	if suite != api.EncryptionSuiteEnclaveV1 {
		return apierr.Invalid("%s must be %s, got %q", path, api.EncryptionSuiteEnclaveV1, suite)
	}
	return nil
}

// execInitImportSecrets makes the caller's one-time import keys, replacing any the caller had not used.
func execInitImportSecrets(x *execution, p *api.InitImportSecretsIntent) (*api.InitImportSecretsResult, error) {
	signer, err := x.c.ownKey(x.ctx, signerKeyName)
	if err != nil {
		return nil, err
	}
	res := &api.InitImportSecretsResult{EnclaveTargetMessages: []string{}}
	var targets []store.ImportTarget
	for range p.NumSecrets {
		key, err := bundle.NewTargetKey()
		if err != nil {
			return nil, err
		}
		raw := key.Bytes()
		sealed, err := x.putSecret(raw)
		keys.Zero(raw)
		if err != nil {
			return nil, err
		}
		targets = append(targets, store.ImportTarget{OrgID: x.org.ID, UserID: x.who.User.ID,
			PublicKey: hex.EncodeToString(key.PublicKey().Bytes()), SealedID: sealed, CreatedAt: x.now.UnixMilli()})
		b, err := bundle.TargetBundle(signer, key.PublicKey(), x.org.ID, x.who.User.ID)
		if err != nil {
			return nil, err
		}
		res.EnclaveTargetMessages = append(res.EnclaveTargetMessages, b)
	}
	if err := x.tx.ReplaceImportTargets(x.ctx, x.org.ID, x.who.User.ID, targets); err != nil {
		return nil, err
	}
	return res, nil
}

func validateImportSecrets(p *api.ImportSecretsIntent) error {
	if err := checkBatch("parameters.secrets", len(p.Secrets)); err != nil {
		return err
	}
	names, targets := map[string]bool{}, map[string]bool{}
	for i, s := range p.Secrets {
		path := fmt.Sprintf("parameters.secrets[%d]", i)
		if err := checkLabel(path+".name", s.Name); err != nil {
			return err
		}
		if s.Name != "" && names[s.Name] {
			return apierr.Invalid("%s.name: %q is given to two secrets of the request; names are unique in an organization", path, s.Name)
		}
		names[s.Name] = true
		if err := checkSuite(path+".encryptionSuite", s.EncryptionSuite); err != nil {
			return err
		}
		target, err := uncompressedKey(path+".targetPublicKey", s.TargetPublicKey)
		if err != nil {
			return err
		}
		if targets[target] {
			return apierr.Invalid("%s.targetPublicKey: each one-time key of INIT_IMPORT_SECRETS receives one secret; this one is named twice", path)
		}
		targets[target] = true
		// A payload is the hex of the ciphertext (twice the secret's length, plus 16 bytes of tag) in a small JSON object.
		if s.SecretPayload == "" || len(s.SecretPayload) > 2*maxSecretBytes+512 {
			return apierr.Invalid("%s.secretPayload must be the JSON {encappedPublic, ciphertext} of a secret of at most %d bytes", path, maxSecretBytes)
		}
		if _, err := staticProperties(path+".staticProperties", s.StaticProperties); err != nil {
			return err
		}
	}
	return nil
}

// checkBatch bounds the secrets of one activity.
func checkBatch(path string, n int) error {
	if n < 1 || n > maxSecretsPerActivity {
		return apierr.Invalid("%s must list from 1 to %d secrets, got %d", path, maxSecretsPerActivity, n)
	}
	return nil
}

// uncompressedKey reads a client's P-256 public key, which the Secrets API takes uncompressed (65 bytes, hex), and
// returns it in lower-case hex.
func uncompressedKey(path, key string) (string, error) {
	if len(key) != 130 {
		return "", apierr.Invalid("%s must be an uncompressed P-256 public key: 130 hexadecimal digits, got %d characters", path, len(key))
	}
	if _, err := bundle.ParsePublicKeyHex(key); err != nil {
		return "", apierr.Invalid("%s: %s", path, err.Error())
	}
	return strings.ToLower(key), nil
}

// staticProperties checks a secret's static properties (or an export's request context) and returns them as the map
// policies read: keys not empty and each given once, keys and values labels (checkLabel) of bounded length.
func staticProperties(path string, kvs []api.KeyValue) (map[string]string, error) {
	if len(kvs) > maxSecretProperties {
		return nil, apierr.Invalid("%s has %d entries; at most %d are accepted", path, len(kvs), maxSecretProperties)
	}
	out := make(map[string]string, len(kvs))
	for i, kv := range kvs {
		at := fmt.Sprintf("%s[%d]", path, i)
		if err := checkName(at+".key", kv.Key); err != nil {
			return nil, err
		}
		if len(kv.Key) > maxPropertyKeyLen {
			return nil, apierr.Invalid("%s.key is longer than %d bytes", at, maxPropertyKeyLen)
		}
		if err := checkLabel(at+".value", kv.Value); err != nil {
			return nil, err
		}
		if _, dup := out[kv.Key]; dup {
			return nil, apierr.Invalid("%s.key: %q is given twice", at, kv.Key)
		}
		out[kv.Key] = kv.Value
	}
	return out, nil
}

// decideEach gives the policy engine one set of facts per secret: the activity is decided once for each, and allowed
// only when every one is (decisionRequest.moreFacts).
func decideEach(d *decisionRequest, secrets []policy.Secret) {
	for i := range secrets {
		in := &policy.Input{Secret: &secrets[i]}
		if i == 0 {
			d.facts = in
		} else {
			d.moreFacts = append(d.moreFacts, in)
		}
	}
}

func prepareImportSecrets(_ *execution, p *api.ImportSecretsIntent, d *decisionRequest) (none, error) {
	facts := make([]policy.Secret, len(p.Secrets))
	for i, s := range p.Secrets {
		props, _ := staticProperties("", s.StaticProperties) // checked already
		facts[i] = policy.Secret{Name: s.Name, StaticProperties: props}
	}
	decideEach(d, facts)
	return none{}, nil
}

// execImportSecrets opens each secret with the one-time key it names, which it destroys, and seals it as a new secret.
// One secret that fails fails the import, and nothing of it stays.
func execImportSecrets(x *execution, p *api.ImportSecretsIntent, _ none) (*api.ImportSecretsResult, error) {
	targets, err := x.tx.ImportTargets(x.ctx, x.org.ID, x.who.User.ID)
	if err != nil {
		return nil, err
	}
	byKey := map[string]store.ImportTarget{}
	for _, t := range targets {
		byKey[t.PublicKey] = t
	}
	res := &api.ImportSecretsResult{SecretIDs: []string{}}
	for i, s := range p.Secrets {
		path := fmt.Sprintf("parameters.secrets[%d]", i)
		target, ok := byKey[strings.ToLower(s.TargetPublicKey)]
		if !ok {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
				"%s.targetPublicKey is none of the one-time keys of your last INIT_IMPORT_SECRETS: it was used or replaced already, or was made for another user or organization", path)
		}
		id, err := x.importSecret(path, target, s)
		if err != nil {
			return nil, err
		}
		res.SecretIDs = append(res.SecretIDs, id)
	}
	return res, nil
}

// importSecret opens one secret with its one-time key, destroys the key, and stores the secret sealed.
func (x *execution) importSecret(path string, target store.ImportTarget, s api.ImportSecretParams) (string, error) {
	value, err := x.openWithTarget(path, target, s.SecretPayload)
	if err != nil {
		return "", err
	}
	defer keys.Zero(value)
	if len(value) == 0 || len(value) > maxSecretBytes {
		return "", apierr.Invalid("%s: a secret must be from 1 to %d bytes long, this one is %d", path, maxSecretBytes, len(value))
	}
	sealed, err := x.putSecret(value)
	if err != nil {
		return "", err
	}
	props := s.StaticProperties
	if props == nil {
		props = []api.KeyValue{}
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return "", err
	}
	row := store.OrgSecret{ID: uuid.Must(uuid.NewV7()).String(), OrgID: x.org.ID, Name: s.Name, Properties: raw, SealedID: sealed,
		CreatedAt: x.now.UnixMilli()}
	if err := x.tx.InsertOrgSecret(x.ctx, row); err != nil {
		if errors.Is(err, store.ErrSecretName) {
			return "", apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "%s.name: the organization has a secret named %q already", path, s.Name)
		}
		return "", err
	}
	return row.ID, x.tx.DeleteImportTarget(x.ctx, target)
}

// openWithTarget decrypts a client's payload with a one-time import key.
func (x *execution) openWithTarget(path string, target store.ImportTarget, payload string) ([]byte, error) {
	var ct bundle.Ciphertext
	if err := json.Unmarshal([]byte(payload), &ct); err != nil || ct.EncappedPublic == "" || ct.Ciphertext == "" {
		return nil, apierr.Invalid("%s.secretPayload is not the JSON {encappedPublic, ciphertext} of encryptSecretToBundle", path)
	}
	raw, err := x.c.openSecret(x.ctx, target.SealedID)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(raw)
	key, err := bundle.ParseTargetKey(raw)
	if err != nil {
		return nil, err
	}
	value, err := bundle.Open(key, ct)
	if err != nil {
		return nil, apierr.Invalid("%s.secretPayload does not decrypt with the key of its targetPublicKey: it was encrypted to another key, or changed", path)
	}
	return value, nil
}

func validateExportSecrets(p *api.ExportSecretsIntent) error {
	if err := checkBatch("parameters.secrets", len(p.Secrets)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, s := range p.Secrets {
		path := fmt.Sprintf("parameters.secrets[%d]", i)
		if err := checkID(path+".secretId", s.SecretID); err != nil {
			return err
		}
		if seen[s.SecretID] {
			return apierr.Invalid("%s.secretId: %s is exported twice in one request", path, s.SecretID)
		}
		seen[s.SecretID] = true
		if _, err := uncompressedKey(path+".targetPublicKey", s.TargetPublicKey); err != nil {
			return err
		}
		if err := checkSuite(path+".encryptionSuite", s.EncryptionSuite); err != nil {
			return err
		}
		if _, err := staticProperties(path+".requestContext", s.RequestContext); err != nil {
			return err
		}
	}
	return nil
}

// secretsOf reads the organization's secrets an activity names, in its order; one it does not have (never imported,
// deleted, another organization's) fails the activity.
func (x *execution) secretsOf(path string, ids []string) ([]store.OrgSecret, []policy.Secret, error) {
	found, err := x.tx.OrgSecrets(x.ctx, x.org.ID, ids)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]store.OrgSecret, len(ids))
	facts := make([]policy.Secret, len(ids))
	for i, id := range ids {
		s, ok := found[id]
		if !ok {
			return nil, nil, apierr.NotFoundf("%s[%d]: no secret %s in organization %s (it may have been deleted)", path, i, id, x.org.ID)
		}
		rows[i] = s
		if facts[i], err = secretFacts(s); err != nil {
			return nil, nil, err
		}
	}
	return rows, facts, nil
}

// secretFacts is what policies read of a stored secret.
func secretFacts(s store.OrgSecret) (policy.Secret, error) {
	props, err := decodeProperties(s.Properties)
	if err != nil {
		return policy.Secret{}, err
	}
	m := make(map[string]string, len(props))
	for _, kv := range props {
		m[kv.Key] = kv.Value
	}
	return policy.Secret{ID: s.ID, Name: s.Name, StaticProperties: m}, nil
}

func decodeProperties(raw []byte) ([]api.KeyValue, error) {
	props := []api.KeyValue{}
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, fmt.Errorf("secret properties: %w", err)
	}
	return props, nil
}

func prepareExportSecrets(x *execution, p *api.ExportSecretsIntent, d *decisionRequest) ([]store.OrgSecret, error) {
	ids := make([]string, len(p.Secrets))
	for i, s := range p.Secrets {
		ids[i] = s.SecretID
	}
	rows, facts, err := x.secretsOf("parameters.secrets", ids)
	if err != nil {
		return nil, err
	}
	decideEach(d, facts)
	return rows, nil
}

// execExportSecrets encrypts every secret to its target key: each bundle with a sender key of its own, made for it.
func execExportSecrets(x *execution, p *api.ExportSecretsIntent, rows []store.OrgSecret) (*api.ExportSecretsResult, error) {
	signer, err := x.c.ownKey(x.ctx, signerKeyName)
	if err != nil {
		return nil, err
	}
	res := &api.ExportSecretsResult{SecretPayloads: make([]string, 0, len(rows))}
	for i, row := range rows {
		target, err := bundle.ParsePublicKeyHex(p.Secrets[i].TargetPublicKey)
		if err != nil {
			return nil, apierr.Invalid("parameters.secrets[%d].targetPublicKey: %s", i, err.Error())
		}
		value, err := x.c.openSecret(x.ctx, row.SealedID)
		if err != nil {
			return nil, err
		}
		b, err := bundle.ExportBundle(signer, target, x.org.ID, value)
		keys.Zero(value)
		if err != nil {
			return nil, err
		}
		res.SecretPayloads = append(res.SecretPayloads, b)
	}
	return res, nil
}

func validateDeleteSecrets(p *api.DeleteSecretsIntent) error {
	if err := checkBatch("parameters.secretIds", len(p.SecretIDs)); err != nil {
		return err
	}
	return checkIDs("parameters.secretIds", p.SecretIDs, false)
}

func prepareDeleteSecrets(x *execution, p *api.DeleteSecretsIntent, d *decisionRequest) ([]store.OrgSecret, error) {
	rows, facts, err := x.secretsOf("parameters.secretIds", p.SecretIDs)
	if err != nil {
		return nil, err
	}
	decideEach(d, facts)
	return rows, nil
}

func execDeleteSecrets(x *execution, p *api.DeleteSecretsIntent, rows []store.OrgSecret) (*api.DeleteSecretsResult, error) {
	for _, row := range rows {
		if err := x.tx.DeleteOrgSecret(x.ctx, row); err != nil {
			return nil, err
		}
	}
	return &api.DeleteSecretsResult{SecretIDs: p.SecretIDs}, nil
}

func queryListSecrets(r *reader, q *api.ListSecretsRequest) (*api.ListSecretsResponse, error) {
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	for _, cursor := range []string{after, before} {
		if cursor != "" {
			if err := checkID("paginationOptions cursor", cursor); err != nil {
				return nil, err
			}
		}
	}
	rows, err := r.c.store.ListOrgSecrets(r.ctx, store.SecretPage{OrgID: r.org.ID, After: after, Before: before, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := &api.ListSecretsResponse{Secrets: []api.SecretMetadata{}}
	for _, row := range rows {
		props, err := decodeProperties(row.Properties)
		if err != nil {
			return nil, err
		}
		out.Secrets = append(out.Secrets, api.SecretMetadata{SecretID: row.ID, Name: row.Name, StaticProperties: props,
			CreatedAtUnixMs: strconv.FormatInt(row.CreatedAt, 10)})
	}
	return out, nil
}
