package coordinator

import (
	"fmt"
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// Tags label users (user tags, which consensus expressions read) and private keys (private key tags, which conditions
// read as private_key.tags). Both kinds work alike: a tag has a unique name among its kind, and its members hold its
// id. tagKind is what differs between them.

// The activity types of this file.
var (
	createUserTag  = activity(api.CreateUserTag, on(resUser, actCreate), validateCreateUserTag, execCreateUserTag)
	updateUserTag  = activity(api.UpdateUserTag, on(resUser, actUpdate), validateUpdateUserTag, execUpdateUserTag)
	deleteUserTags = activity(api.DeleteUserTags, on(resUser, actDelete), validateDeleteUserTags, execDeleteUserTags)

	createPrivateKeyTag  = activity(api.CreatePrivateKeyTag, on(resPrivateKey, actCreate), validateCreatePrivateKeyTag, execCreatePrivateKeyTag)
	updatePrivateKeyTag  = activity(api.UpdatePrivateKeyTag, on(resPrivateKey, actUpdate), validateUpdatePrivateKeyTag, execUpdatePrivateKeyTag)
	deletePrivateKeyTags = activity(api.DeletePrivateKeyTags, on(resPrivateKey, actDelete), validateDeletePrivateKeyTags, execDeletePrivateKeyTags)
)

// listPrivateKeyTags is the query of private key tags.
var listPrivateKeyTags = query(api.ListPrivateKeyTags, queryListPrivateKeyTags)

// tagKind is one kind of tag in an organization: its tags, and the tag list of a member by id.
type tagKind struct {
	what    string // "user" or "private key", for messages
	tags    *[]*Tag
	members func() []*[]string                 // every member's tag list
	member  func(id string) (*[]string, error) // one member's tag list
}

func (x *execution) userTags() tagKind {
	o := x.org
	return tagKind{what: "user", tags: &o.Tags,
		members: func() []*[]string {
			out := make([]*[]string, len(o.Users))
			for i, u := range o.Users {
				out[i] = &u.Tags
			}
			return out
		},
		member: func(id string) (*[]string, error) {
			u, err := x.user(id)
			if err != nil {
				return nil, err
			}
			return &u.Tags, nil
		}}
}

func (x *execution) privateKeyTags() tagKind {
	o := x.org
	return tagKind{what: "private key", tags: &o.PrivateKeyTags,
		members: func() []*[]string {
			out := make([]*[]string, len(o.PrivateKeys))
			for i, k := range o.PrivateKeys {
				out[i] = &k.Tags
			}
			return out
		},
		member: func(id string) (*[]string, error) {
			if k := o.PrivateKey(id); k != nil {
				return &k.Tags, nil
			}
			return nil, apierr.NotFoundf("private key %s not found in organization %s", id, o.ID)
		}}
}

func (k tagKind) find(id string) *Tag { return byID(*k.tags, id, func(t *Tag) string { return t.ID }) }

func (k tagKind) nameFree(name string) error {
	if slices.ContainsFunc(*k.tags, func(t *Tag) bool { return t.Name == name }) {
		return apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "a %s tag named %q already exists", k.what, name)
	}
	return nil
}

// create adds a tag named name to the members.
func (k tagKind) create(x *execution, name string, memberIDs []string) (*Tag, error) {
	if err := k.nameFree(name); err != nil {
		return nil, err
	}
	if n := len(x.org.Tags) + len(x.org.PrivateKeyTags); n >= x.org.maxTags() {
		return nil, limitReached("organization %s has %d tags, the most it may have (user and private key tags together)", x.org.ID, n)
	}
	tag := &Tag{ID: newID(), Name: name, CreatedAt: x.now, UpdatedAt: x.now}
	if err := k.tagMembers(tag.ID, memberIDs, true); err != nil {
		return nil, err
	}
	*k.tags = append(*k.tags, tag)
	return tag, nil
}

// tagMembers adds the tag to (or removes it from) the members.
func (k tagKind) tagMembers(tagID string, memberIDs []string, add bool) error {
	for _, id := range memberIDs {
		tags, err := k.member(id)
		if err != nil {
			return err
		}
		if add && !slices.Contains(*tags, tagID) {
			*tags = append(*tags, tagID)
		} else if !add {
			*tags = slices.DeleteFunc(*tags, func(t string) bool { return t == tagID })
		}
	}
	return nil
}

// update renames a tag (unless newName is empty) and adds and removes members.
func (k tagKind) update(x *execution, id, newName string, add, remove []string) (*Tag, error) {
	tag := k.find(id)
	if tag == nil {
		return nil, apierr.NotFoundf("%s tag %s not found", k.what, id)
	}
	if newName != "" && newName != tag.Name {
		if err := k.nameFree(newName); err != nil {
			return nil, err
		}
		tag.Name = newName
	}
	if err := k.tagMembers(tag.ID, add, true); err != nil {
		return nil, err
	}
	if err := k.tagMembers(tag.ID, remove, false); err != nil {
		return nil, err
	}
	tag.UpdatedAt = x.now
	return tag, nil
}

// delete removes tags from their members and from the organization, and returns the members it untagged.
func (k tagKind) delete(ids []string, memberIDs func(i int) string) ([]string, error) {
	for _, id := range ids {
		if k.find(id) == nil {
			return nil, apierr.NotFoundf("%s tag %s not found", k.what, id)
		}
	}
	untagged := []string{}
	for i, tags := range k.members() {
		before := len(*tags)
		*tags = slices.DeleteFunc(*tags, func(t string) bool { return slices.Contains(ids, t) })
		if len(*tags) != before {
			untagged = append(untagged, memberIDs(i))
		}
	}
	*k.tags = slices.DeleteFunc(*k.tags, func(t *Tag) bool { return slices.Contains(ids, t.ID) })
	return untagged, nil
}

func checkCreateTag(what, name string, memberIDs []string) error {
	if err := checkName(fmt.Sprintf("parameters.%sTagName", what), name); err != nil {
		return err
	}
	return checkIDs(fmt.Sprintf("parameters.%sIds", what), memberIDs, true)
}

func checkUpdateTag(what, id, newName string, add, remove []string) error {
	if err := checkID(fmt.Sprintf("parameters.%sTagId", what), id); err != nil {
		return err
	}
	if newName != "" {
		if err := checkName(fmt.Sprintf("parameters.new%sTagName", capitalize(what)), newName); err != nil {
			return err
		}
	}
	if err := checkIDs(fmt.Sprintf("parameters.add%sIds", capitalize(what)), add, true); err != nil {
		return err
	}
	return checkIDs(fmt.Sprintf("parameters.remove%sIds", capitalize(what)), remove, true)
}

func capitalize(s string) string { return string(s[0]-'a'+'A') + s[1:] }

func validateCreateUserTag(p *api.CreateUserTagIntent) error {
	return checkCreateTag("user", p.UserTagName, p.UserIDs)
}

func execCreateUserTag(x *execution, p *api.CreateUserTagIntent) (*api.CreateUserTagResult, error) {
	tag, err := x.userTags().create(x, p.UserTagName, p.UserIDs)
	if err != nil {
		return nil, err
	}
	return &api.CreateUserTagResult{UserTagID: tag.ID, UserIDs: p.UserIDs}, nil
}

func validateUpdateUserTag(p *api.UpdateUserTagIntent) error {
	return checkUpdateTag("user", p.UserTagID, p.NewUserTagName, p.AddUserIDs, p.RemoveUserIDs)
}

func execUpdateUserTag(x *execution, p *api.UpdateUserTagIntent) (*api.UpdateUserTagResult, error) {
	tag, err := x.userTags().update(x, p.UserTagID, p.NewUserTagName, p.AddUserIDs, p.RemoveUserIDs)
	if err != nil {
		return nil, err
	}
	return &api.UpdateUserTagResult{UserTagID: tag.ID}, nil
}

func validateDeleteUserTags(p *api.DeleteUserTagsIntent) error {
	return checkIDs("parameters.userTagIds", p.UserTagIDs, false)
}

func execDeleteUserTags(x *execution, p *api.DeleteUserTagsIntent) (*api.DeleteUserTagsResult, error) {
	users, err := x.userTags().delete(p.UserTagIDs, func(i int) string { return x.org.Users[i].ID })
	if err != nil {
		return nil, err
	}
	return &api.DeleteUserTagsResult{UserTagIDs: p.UserTagIDs, UserIDs: users}, nil
}

func validateCreatePrivateKeyTag(p *api.CreatePrivateKeyTagIntent) error {
	return checkCreateTag("privateKey", p.PrivateKeyTagName, p.PrivateKeyIDs)
}

func execCreatePrivateKeyTag(x *execution, p *api.CreatePrivateKeyTagIntent) (*api.CreatePrivateKeyTagResult, error) {
	tag, err := x.privateKeyTags().create(x, p.PrivateKeyTagName, p.PrivateKeyIDs)
	if err != nil {
		return nil, err
	}
	return &api.CreatePrivateKeyTagResult{PrivateKeyTagID: tag.ID, PrivateKeyIDs: p.PrivateKeyIDs}, nil
}

func validateUpdatePrivateKeyTag(p *api.UpdatePrivateKeyTagIntent) error {
	return checkUpdateTag("privateKey", p.PrivateKeyTagID, p.NewPrivateKeyTagName, p.AddPrivateKeyIDs, p.RemovePrivateKeyIDs)
}

func execUpdatePrivateKeyTag(x *execution, p *api.UpdatePrivateKeyTagIntent) (*api.UpdatePrivateKeyTagResult, error) {
	tag, err := x.privateKeyTags().update(x, p.PrivateKeyTagID, p.NewPrivateKeyTagName, p.AddPrivateKeyIDs, p.RemovePrivateKeyIDs)
	if err != nil {
		return nil, err
	}
	return &api.UpdatePrivateKeyTagResult{PrivateKeyTagID: tag.ID}, nil
}

func validateDeletePrivateKeyTags(p *api.DeletePrivateKeyTagsIntent) error {
	return checkIDs("parameters.privateKeyTagIds", p.PrivateKeyTagIDs, false)
}

func execDeletePrivateKeyTags(x *execution, p *api.DeletePrivateKeyTagsIntent) (*api.DeletePrivateKeyTagsResult, error) {
	keys, err := x.privateKeyTags().delete(p.PrivateKeyTagIDs, func(i int) string { return x.org.PrivateKeys[i].ID })
	if err != nil {
		return nil, err
	}
	return &api.DeletePrivateKeyTagsResult{PrivateKeyTagIDs: p.PrivateKeyTagIDs, PrivateKeyIDs: keys}, nil
}

func queryListPrivateKeyTags(r *reader, _ *api.OrganizationRequest) (*api.ListPrivateKeyTagsResponse, error) {
	out := &api.ListPrivateKeyTagsResponse{PrivateKeyTags: []api.Tag{}}
	for _, t := range r.org.PrivateKeyTags {
		rendered := renderTag(t)
		rendered.TagType = api.TagTypePrivateKey
		out.PrivateKeyTags = append(out.PrivateKeyTags, rendered)
	}
	return out, nil
}
