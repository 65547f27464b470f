package coordinator

import (
	"slices"

	"sigil/api"
	"sigil/apierr"
)

// The activity types of this file.
var (
	createUserTag  = activity(api.CreateUserTag, on(resUser, actCreate), validateCreateUserTag, execCreateUserTag)
	updateUserTag  = activity(api.UpdateUserTag, on(resUser, actUpdate), validateUpdateUserTag, execUpdateUserTag)
	deleteUserTags = activity(api.DeleteUserTags, on(resUser, actDelete), validateDeleteUserTags, execDeleteUserTags)
)

func validateCreateUserTag(p *api.CreateUserTagIntent) error {
	if err := checkName("parameters.userTagName", p.UserTagName); err != nil {
		return err
	}
	return checkIDs("parameters.userIds", p.UserIDs, true)
}

func execCreateUserTag(x *execution, p *api.CreateUserTagIntent) (*api.CreateUserTagResult, error) {
	if slices.ContainsFunc(x.org.Tags, func(t *Tag) bool { return t.Name == p.UserTagName }) {
		return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "a tag named %q already exists", p.UserTagName)
	}
	tag := &Tag{ID: newID(), Name: p.UserTagName, CreatedAt: x.now, UpdatedAt: x.now}
	for _, id := range p.UserIDs {
		u, err := x.user(id)
		if err != nil {
			return nil, err
		}
		u.Tags = append(u.Tags, tag.ID)
	}
	x.org.Tags = append(x.org.Tags, tag)
	return &api.CreateUserTagResult{UserTagID: tag.ID, UserIDs: p.UserIDs}, nil
}

func validateUpdateUserTag(p *api.UpdateUserTagIntent) error {
	if err := checkID("parameters.userTagId", p.UserTagID); err != nil {
		return err
	}
	if p.NewUserTagName != "" {
		if err := checkName("parameters.newUserTagName", p.NewUserTagName); err != nil {
			return err
		}
	}
	if err := checkIDs("parameters.addUserIds", p.AddUserIDs, true); err != nil {
		return err
	}
	return checkIDs("parameters.removeUserIds", p.RemoveUserIDs, true)
}

func execUpdateUserTag(x *execution, p *api.UpdateUserTagIntent) (*api.UpdateUserTagResult, error) {
	tag := x.org.Tag(p.UserTagID)
	if tag == nil {
		return nil, apierr.NotFoundf("tag %s not found", p.UserTagID)
	}
	if p.NewUserTagName != "" && p.NewUserTagName != tag.Name {
		if slices.ContainsFunc(x.org.Tags, func(t *Tag) bool { return t.Name == p.NewUserTagName }) {
			return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "a tag named %q already exists", p.NewUserTagName)
		}
		tag.Name = p.NewUserTagName
	}
	for _, id := range p.AddUserIDs {
		u, err := x.user(id)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(u.Tags, tag.ID) {
			u.Tags = append(u.Tags, tag.ID)
		}
	}
	for _, id := range p.RemoveUserIDs {
		u, err := x.user(id)
		if err != nil {
			return nil, err
		}
		u.Tags = slices.DeleteFunc(u.Tags, func(t string) bool { return t == tag.ID })
	}
	tag.UpdatedAt = x.now
	return &api.UpdateUserTagResult{UserTagID: tag.ID}, nil
}

func validateDeleteUserTags(p *api.DeleteUserTagsIntent) error {
	return checkIDs("parameters.userTagIds", p.UserTagIDs, false)
}

func execDeleteUserTags(x *execution, p *api.DeleteUserTagsIntent) (*api.DeleteUserTagsResult, error) {
	for _, id := range p.UserTagIDs {
		if x.org.Tag(id) == nil {
			return nil, apierr.NotFoundf("tag %s not found", id)
		}
	}
	res := &api.DeleteUserTagsResult{UserTagIDs: p.UserTagIDs, UserIDs: []string{}}
	for _, u := range x.org.Users {
		before := len(u.Tags)
		u.Tags = slices.DeleteFunc(u.Tags, func(t string) bool { return slices.Contains(p.UserTagIDs, t) })
		if len(u.Tags) != before {
			res.UserIDs = append(res.UserIDs, u.ID)
		}
	}
	x.org.Tags = slices.DeleteFunc(x.org.Tags, func(t *Tag) bool { return slices.Contains(p.UserTagIDs, t.ID) })
	return res, nil
}
