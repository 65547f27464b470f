package coordinator

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/sigil/sigil/api"
)

// An activity's wire form embeds JSON encoded earlier: its intent and result, as stored, and the nested activity record
// inside its result. encoding/json re-scans every such json.RawMessage to compact it, a byte at a time; for an activity
// response that scan costs several times more than encoding everything else in it. So activities are marshalled here:
// the struct without its intent and result by encoding/json, and those spliced in as they are. Every embedded value
// was written by encoding/json, into the record or by this file, so it is already compact and valid.

// activityHead is an activity without its intent and result: the nil fields of the same JSON names, shallower than the
// embedded ones, hide them.
type activityHead struct {
	*api.Activity
	Intent *struct{} `json:"intent,omitempty"`
	Result *struct{} `json:"result,omitempty"`
}

// nestedHead is activityHead for the nested record.
type nestedHead struct {
	*api.NestedActivity
	Intent *struct{} `json:"intent,omitempty"`
	Result *struct{} `json:"result,omitempty"`
}

// recordHead is a record without its intent and result.
type recordHead struct {
	*record
	Intent *struct{} `json:"intent,omitempty"`
	Result *struct{} `json:"result,omitempty"`
}

// marshalActivityResponse is json.Marshal of r, without re-scanning what it embeds.
func marshalActivityResponse(r *api.ActivityResponse) ([]byte, error) {
	b := append(make([]byte, 0, 6<<10), `{"activity":`...)
	b, err := appendActivity(b, &r.Activity)
	return append(b, '}'), err
}

// marshalActivity is json.Marshal of a, without re-scanning what it embeds: a webhook's body.
func marshalActivity(a *api.Activity) ([]byte, error) {
	return appendActivity(make([]byte, 0, 6<<10), a)
}

func appendActivity(b []byte, a *api.Activity) ([]byte, error) {
	return appendSpliced(b, activityHead{Activity: a}, rawObject("intent", a.Intent), rawObject("result", a.Result))
}

// marshalNested is json.Marshal of n, without re-scanning what it embeds.
func marshalNested(n *api.NestedActivity) (json.RawMessage, error) {
	return appendSpliced(nil, nestedHead{NestedActivity: n}, rawObject("intent", n.Intent), rawObject("result", n.Result))
}

// marshalRecord is json.Marshal of r, without re-scanning what it embeds.
func marshalRecord(r *record) ([]byte, error) {
	members := []rawMember{{"intent", r.Intent}}
	if len(r.Result) > 0 { // omitempty
		members = append(members, rawMember{"result", r.Result})
	}
	return appendSpliced(nil, recordHead{record: r}, members...)
}

// rawMember is an object member whose value is encoded JSON.
type rawMember struct {
	name  string
	value []byte
}

// rawObject is a member whose value is the object m, its keys sorted as encoding/json sorts them.
func rawObject(name string, m map[string]json.RawMessage) rawMember {
	size := 2
	for k, v := range m {
		size += len(k) + len(v) + 8
	}
	b := append(make([]byte, 0, size), '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMember(b, rawMember{k, m[k]})
	}
	return rawMember{name, append(b, '}')}
}

// appendSpliced appends head, a struct whose hidden fields are the members, with the members put back.
func appendSpliced(b []byte, head any, members ...rawMember) ([]byte, error) {
	encoded, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	size := len(encoded)
	for _, m := range members {
		size += len(m.name) + len(m.value) + 8
	}
	b = slices.Grow(b, size)
	b = append(b, encoded[:len(encoded)-1]...) // all but the closing brace: every head has members of its own
	for _, m := range members {
		b = appendMember(append(b, ','), m)
	}
	return append(b, '}'), nil
}

// appendMember appends "name":value; an empty value is null.
func appendMember(b []byte, m rawMember) []byte {
	b = append(appendName(b, m.name), ':')
	if len(m.value) == 0 {
		return append(b, "null"...)
	}
	return append(b, m.value...)
}

// appendName appends name as a JSON string. Names here are identifiers, which need no escaping; any other is escaped
// by encoding/json.
func appendName(b []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			quoted, _ := json.Marshal(name) // a string always marshals
			return append(b, quoted...)
		}
	}
	return append(append(append(b, '"'), name...), '"')
}
