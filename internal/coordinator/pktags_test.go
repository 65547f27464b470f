package coordinator_test

import (
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// Private key tags label keys, and policies read them as private_key.tags.
func TestPrivateKeyTags(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		mk := func(name string) string {
			res, _, err := s.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
				PrivateKeyName: name, Curve: "CURVE_SECP256K1", PrivateKeyTags: []string{}, AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}}}})
			if err != nil {
				t.Fatal(err)
			}
			return res.PrivateKeys[0].PrivateKeyID
		}
		hot, cold := mk("hot"), mk("cold")
		tag, _, err := s.root.CreatePrivateKeyTag(bg, org, api.CreatePrivateKeyTagIntent{PrivateKeyTagName: "hot wallet", PrivateKeyIDs: []string{hot}})
		if err != nil {
			t.Fatal(err)
		}
		s.policy("bob signs with hot keys", api.EffectAllow, "private_key.tags.contains('"+tag.PrivateKeyTagID+"')", "approvers.any(user, user.id == '"+bobID+"')")
		sign := func(key string) error {
			_, _, err := bob.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: key, Payload: "0x" + "11" + "00000000000000000000000000000000000000000000000000000000000000",
				Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
			return err
		}
		if err := sign(hot); err != nil {
			t.Fatalf("the tagged key: %v", err)
		}
		if err := sign(cold); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("the untagged key: %v, want a denial", err)
		}
		if _, _, err := s.root.UpdatePrivateKeyTag(bg, org, api.UpdatePrivateKeyTagIntent{PrivateKeyTagID: tag.PrivateKeyTagID,
			NewPrivateKeyTagName: "hot keys", AddPrivateKeyIDs: []string{cold}, RemovePrivateKeyIDs: []string{hot}}); err != nil {
			t.Fatal(err)
		}
		if err := sign(cold); err != nil {
			t.Fatalf("the key tagged by the update: %v", err)
		}
		list, err := s.root.ListPrivateKeyTags(bg, org)
		if err != nil || len(list.PrivateKeyTags) != 1 || list.PrivateKeyTags[0].TagName != "hot keys" || list.PrivateKeyTags[0].TagType != api.TagTypePrivateKey {
			t.Fatalf("list_private_key_tags = %+v %v", list, err)
		}
		del, _, err := s.root.DeletePrivateKeyTags(bg, org, []string{tag.PrivateKeyTagID})
		if err != nil || len(del.PrivateKeyIDs) != 1 || del.PrivateKeyIDs[0] != cold {
			t.Fatalf("delete_private_key_tags = %+v %v", del, err)
		}
		if _, _, err := s.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
			PrivateKeyName: "x", Curve: "CURVE_SECP256K1", PrivateKeyTags: []string{tag.PrivateKeyTagID}, AddressFormats: []string{}}}}); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("a key created with a deleted tag: %v", err)
		}
	})
}
