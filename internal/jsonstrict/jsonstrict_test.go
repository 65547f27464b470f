package jsonstrict

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type apiKey struct {
	Name       string `json:"apiKeyName"`
	PublicKey  string `json:"publicKey"`
	Expiration string `json:"expirationSeconds,omitempty"`
}

type user struct {
	Name    string          `json:"userName"`
	Email   string          `json:"userEmail,omitempty"`
	APIKeys []apiKey        `json:"apiKeys"`
	Tags    []string        `json:"userTags"`
	Count   *int32          `json:"count,omitempty"`
	Later   string          `json:"later,omitempty" sigil:"unsupported"`
	Extra   json.RawMessage `json:"extra,omitempty"`
}

type params struct {
	Users []user `json:"users"`
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"malformed", `{"users": [`, "parameters: malformed JSON"},
		{"trailing", `{"users": []} x`, "unexpected data after"},
		{"duplicate", `{"users": [], "users": []}`, `duplicate key "users"`},
		{"unknown", `{"users": [], "nope": 1}`, "parameters.nope: unknown field"},
		{"unknown nested with hint", `{"users": [{"username": "a", "userName": "a", "apiKeys": [], "userTags": []}]}`, `parameters.users[0].username: unknown field (did you mean "userName"?)`},
		{"wrong type", `{"users": [{"userName": 5, "apiKeys": [], "userTags": []}]}`, "parameters.users[0].userName: expected string, got number"},
		{"missing required", `{"users": [{"userName": "a", "userTags": []}]}`, "parameters.users[0].apiKeys: required field is missing"},
		{"null required", `{"users": null}`, "parameters.users: required field is missing"},
		{"deep", `{"users": [{"userName": "a", "apiKeys": [{"apiKeyName": "k"}], "userTags": []}]}`, "parameters.users[0].apiKeys[0].publicKey: required field is missing"},
		{"int overflow", `{"users": [{"userName": "a", "apiKeys": [], "userTags": [], "count": 99999999999}]}`, "count: expected an integer in range"},
		{"float for int", `{"users": [{"userName": "a", "apiKeys": [], "userTags": [], "count": 1.5}]}`, "count: expected an integer in range"},
		{"unsupported", `{"users": [{"userName": "a", "apiKeys": [], "userTags": [], "later": "x"}]}`, "later: is not supported yet"},
		{"not an object", `[]`, "parameters: expected object, got array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p params
			err := Decode([]byte(c.in), &p, "parameters")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want error containing %q", err, c.want)
			}
		})
	}
}

func TestDecodeOK(t *testing.T) {
	var p params
	in := `{"users": [{"userName": "a", "userEmail": "a@x.io", "apiKeys": [{"apiKeyName": "k", "publicKey": "02ab"}], "userTags": [], "count": 7, "later": null, "extra": {"b": [1, "x"]}}]}`
	if err := Decode([]byte(in), &p, "parameters"); err != nil {
		t.Fatal(err)
	}
	u := p.Users[0]
	if u.Name != "a" || u.Email != "a@x.io" || u.APIKeys[0].PublicKey != "02ab" || u.Tags == nil || *u.Count != 7 {
		t.Fatalf("decoded %+v", u)
	}
	if string(u.Extra) != `{"b":[1,"x"]}` {
		t.Fatalf("raw = %s", u.Extra)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"users": [{"userName": "a", "apiKeys": [], "userTags": []}]}`))
	f.Add([]byte(`{"users": [{"a": {"b": [1, 2, {"c": null}]}}]}`))
	f.Add([]byte(`{"a": "\u00e9\ud83d\ude00 \"q\"", "b": [-0.5e+3, 0, 1E2], "c": true, "d": false}`))
	f.Add([]byte(`["\xff", 01, 1., -, .5, tru, "unterminated`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p params
		_ = Decode(data, &p, "p")
		// The scanner accepts exactly what encoding/json accepts (duplicate keys aside, which it refuses), and
		// reads the same values.
		var mine, theirs any
		err := Decode(data, &mine, "p")
		if json.Valid(data) {
			if err != nil && !strings.Contains(err.Error(), "duplicate key") {
				t.Fatalf("valid JSON refused: %v", err)
			}
			if err == nil {
				dec := json.NewDecoder(bytes.NewReader(data))
				dec.UseNumber()
				_ = dec.Decode(&theirs)
				if a, b := normalized(mine), normalized(theirs); !reflect.DeepEqual(a, b) {
					t.Fatalf("decoded %#v, encoding/json decodes %#v", a, b)
				}
			}
		} else if err == nil {
			t.Fatalf("invalid JSON accepted: %q", data)
		}
	})
}

// normalized is v as encoding/json reads it back with its defaults, so that 1e64 and 10000…0 compare equal.
func normalized(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
