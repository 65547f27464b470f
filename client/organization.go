package client

import (
	"cmp"
	"reflect"
)

// organization is the organization a call acts in: the one it names, else the client's default.
func (c *Client) organization(orgID string) (string, error) {
	if id := cmp.Or(orgID, c.Organization); id != "" {
		return id, nil
	}
	return "", ErrNoOrganization
}

// withOrganization returns a query's request with the client's Organization in its OrganizationID field when it has
// one and it is empty; the caller's value is not changed. Every query of the reference's API but a few names the
// organization in its body, in a field of that name.
func (c *Client) withOrganization(req any) any {
	if c.Organization == "" {
		return req
	}
	v := reflect.ValueOf(req)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return req
	}
	f, ok := v.Type().FieldByName("OrganizationID")
	if !ok || len(f.Index) != 1 || f.Type.Kind() != reflect.String || v.Field(f.Index[0]).String() != "" {
		return req
	}
	filled := reflect.New(v.Type()).Elem()
	filled.Set(v)
	filled.Field(f.Index[0]).SetString(c.Organization)
	return filled.Interface()
}
