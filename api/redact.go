package api

import (
	"reflect"
	"sync"
)

// Redacted is what activity records show in place of a secret parameter (an OTP code, a verification token, an OIDC
// token, a client secret), used by the activity and never stored or returned, and of a secret result (a bearer
// token), which only the answer to the request that ran the activity shows.
const Redacted = "<redacted>"

// secretTag marks a string field whose value is a secret: `sigil:"secret"`. Wire types encode what they hold; the
// coordinator redacts a copy (Redact) where it records an activity, as an audit device redacts what it writes.
const secretTag = "secret"

// Redact returns v with every non-empty string field tagged `sigil:"secret"` replaced by Redacted, in a copy: v itself
// is not changed. A value whose type holds no secret field, at any depth, is returned as it is.
func Redact(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !hasSecrets(rv.Type()) {
		return v
	}
	return redactValue(rv).Interface()
}

// secretTypes caches, per type, whether it holds a secret field at any depth.
var secretTypes sync.Map // reflect.Type -> bool

func hasSecrets(t reflect.Type) bool {
	if known, ok := secretTypes.Load(t); ok {
		return known.(bool)
	}
	secretTypes.Store(t, false) // a recursive type is answered false while it is being looked at
	found := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		found = hasSecrets(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.IsExported() && (isSecret(f) || hasSecrets(f.Type)) {
				found = true
				break
			}
		}
	}
	secretTypes.Store(t, found)
	return found
}

func isSecret(f reflect.StructField) bool {
	return f.Type.Kind() == reflect.String && f.Tag.Get("sigil") == secretTag
}

// redactValue copies v, redacting what hasSecrets found; parts without secrets are shared with v, not copied.
func redactValue(v reflect.Value) reflect.Value {
	if !hasSecrets(v.Type()) {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(redactValue(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(redactValue(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(redactValue(v.Index(i)))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			f := v.Type().Field(i)
			switch {
			case !f.IsExported():
			case isSecret(f):
				if v.Field(i).String() != "" {
					out.Field(i).SetString(Redacted)
				}
			default:
				out.Field(i).Set(redactValue(v.Field(i)))
			}
		}
		return out
	}
	return v
}
