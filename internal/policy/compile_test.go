package policy

import (
	"errors"
	"math/big"
	"strings"
	"testing"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name  string
		field Field
		src   string
		want  string // the whole error text
	}{
		{"unknown field with suggestion", Condition, "eth.tx.too == '0x1'",
			"condition: unknown field 'eth.tx.too' at column 8; did you mean 'eth.tx.to'?"},
		{"unknown field without suggestion", Condition, "wallet_account.path == 'm'",
			"condition: unknown field 'wallet_account.path' at column 16"},
		{"unknown field on bound variable", Consensus, "approvers.any(user, user.idd == 'u')",
			"consensus: unknown field 'user.idd' at column 26; did you mean 'user.id'?"},
		{"unknown keyword", Condition, "activty.type == 'x'",
			"condition: unknown keyword 'activty' in condition at column 1; did you mean 'activity'?"},
		{"keyword of the other field", Condition, "approvers.count() >= 2",
			"condition: keyword 'approvers' can be used only in the consensus field at column 1"},
		{"keyword of the other field in consensus", Consensus, "activity.action == 'SIGN'",
			"consensus: keyword 'activity' can be used only in the condition field at column 1"},
		{"int compared with a string that is no number", Condition, "eth.tx.chain_id == '0x1'",
			"condition: type mismatch: cannot compare 'eth.tx.chain_id' (an int) with '0x1' (a string) at column 17"},
		{"int compared with a string field", Condition, "eth.tx.chain_id == eth.tx.to",
			"condition: type mismatch: cannot compare 'eth.tx.chain_id' (an int) with 'eth.tx.to' (a string) at column 17"},
		{"string compared with int", Condition, "eth.tx.to == 5",
			"condition: type mismatch: cannot compare 'eth.tx.to' (a string) with 5 (an int) at column 11; write '5' in single quotes"},
		{"ordering strings", Condition, "eth.tx.to < 'b'",
			"condition: type mismatch: '<' compares ints, but 'eth.tx.to' is a string and 'b' is a string at column 11"},
		{"comparing structs", Condition, "wallet == wallet",
			"condition: cannot compare 'wallet' (a Wallet) with 'wallet' (a Wallet): only strings, ints and bools compare at column 8"},
		{"in with the wrong element type", Condition, "eth.tx.nonce in ['1', 'x']",
			"condition: cannot look for 'eth.tx.nonce' (an int) in ['1', 'x'] (a list<string>) at column 14"},
		{"in without a list", Condition, "'a' in eth.tx.to",
			"condition: 'in' needs a list on its right, but 'eth.tx.to' is a string at column 5"},
		{"method on the wrong type", Condition, "eth.tx.to.count() == 1",
			"condition: method 'count' needs a list, but 'eth.tx.to' is a string at column 11"},
		{"unknown method", Consensus, "approvers.size() == 1",
			"consensus: unknown method 'size'; the methods are any, all, filter, contains and count at column 11"},
		{"misspelt method", Consensus, "approvers.cont() == 1",
			"consensus: unknown method 'cont'; the methods are any, all, filter, contains and count at column 11; did you mean 'count'?"},
		{"method without parentheses", Consensus, "approvers.any == 1",
			"consensus: 'approvers' is a list<User> and has no field 'any' at column 11; did you mean the method any()?"},
		{"wrong arity", Consensus, "approvers.any(u)",
			"consensus: method 'any' takes 2 argument(s), got 1; write any(name, condition) at column 11"},
		{"wrong arity count", Consensus, "approvers.count(1) == 1",
			"consensus: method 'count' takes 0 argument(s), got 1; write count() at column 11"},
		{"contains with the wrong type", Consensus, "approvers.any(u, u.tags.contains(1))",
			"consensus: 'u.tags'.contains needs a string, but 1 is an int at column 34; write '1' in single quotes"},
		{"bound variable not a name", Consensus, "approvers.any('u', true)",
			"consensus: the first argument must be a name for each element, as in approvers.any(user, user.id == '...') at column 15"},
		{"bound variable shadows a keyword", Consensus, "approvers.any(credentials, credentials.id == 'x')",
			"consensus: bound variable 'credentials' shadows a keyword; choose another name at column 15"},
		{"bound variable shadows a keyword of the other field", Consensus, "approvers.any(wallet, wallet.id == 'x')",
			"consensus: bound variable 'wallet' shadows a keyword; choose another name at column 15"},
		{"bound variable shadows a bound variable", Consensus, "approvers.any(u, approvers.any(u, u.id == 'x'))",
			"consensus: bound variable 'u' is already bound by an enclosing method; choose another name at column 32"},
		{"bound variable out of scope", Consensus, "approvers.any(u, u.id == 'x') && u.id == 'y'",
			"consensus: unknown keyword 'u' in consensus at column 34"},
		{"predicate not bool", Consensus, "approvers.any(u, u.id)",
			"consensus: 'u.id' is a string, but a bool is needed here at column 18"},
		{"expression not bool", Condition, "eth.tx.value",
			"condition: the expression is an int; it must be a bool (true or false) at column 8"},
		{"and of non-bools", Condition, "eth.tx.to && true",
			"condition: 'eth.tx.to' is a string, but a bool is needed here at column 1"},
		{"field of a scalar", Condition, "eth.tx.to.x == 'a'",
			"condition: 'eth.tx.to' is a string and has no field 'x' at column 11"},
		{"field of a dynamic value", Condition, "eth.eip_712.message.to == 'a'",
			"condition: 'eth.eip_712.message' is a dynamic value, so its keys are read with ['...'] at column 21; write eth.eip_712.message['to']"},
		{"index a struct", Condition, "wallet[0] == 'a'",
			"condition: 'wallet' is a Wallet and cannot be indexed at column 7"},
		{"index with a string", Condition, "eth.tx.data['a'] == 'a'",
			"condition: index 'a' is a string; a string is indexed by an int at column 13"},
		{"params key not a literal", Condition, "activity.params[activity.type] == 'a'",
			"condition: keys of 'activity.params' must be written as string literals at column 26"},
		{"unknown params key", Condition, "activity.params['hash_fuction'] == 'a'",
			"condition: unknown field 'activity.params.hash_fuction' at column 17; did you mean 'activity.params.hash_function'?"},
		{"slice a bool", Condition, "wallet.imported[0..1] == 'a'",
			"condition: 'wallet.imported' is a bool and cannot be sliced; only strings and lists can at column 16"},
		{"slice bound not an int", Condition, "eth.tx.data[0..'a'] == 'a'",
			"condition: slice bound 'a' is a string, not an int at column 16"},
		{"slice backwards", Condition, "eth.tx.data[10..2] == 'a'",
			"condition: slice [10..2] ends before it starts at column 12"},
		{"mixed list", Condition, "eth.tx.to in ['a', 1]",
			"condition: list mixes string and int elements at column 20"},
		{"list of structs", Condition, "[wallet] == []",
			"condition: list elements must be strings, ints or bools, but 'wallet' is a Wallet at column 2"},
		{"unknown function", Condition, "len(eth.tx.data) == 10",
			"condition: unknown function 'len': the functions are Timestamp and CronSpan, and the list methods any, all, filter, contains and count at column 1"},
		{"syntax error", Condition, "eth.tx.to == \"0xabc\"",
			"condition: double-quoted string: strings use single quotes, as in 'value' at column 14"},
		{"syntax error on line 2", Condition, "eth.tx.to == '0x1'\n&& &&",
			"condition: unexpected '&&', expected a value at line 2, column 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.src, tt.field)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q) = %v, want a *CompileError", tt.src, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Compile(%q)\n got %s\nwant %s", tt.src, err, tt.want)
			}
		})
	}
}

// The reference's policy 29 (Tempo) needs a feature Sigil lacks.
func TestCompileNotSupportedYet(t *testing.T) {
	tests := []struct {
		ref   int
		field Field
		src   string
	}{
		{29, Condition, "activity.action == 'SIGN' && activity.params.type == 'TRANSACTION_TYPE_TEMPO' && tempo.tx.calls.all(call, call.to == 'C')"},
		{29, Condition, "tempo.tx.calls[0].input[34..74] == 'ADDR'"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src, tt.field)
		if err == nil || !strings.Contains(err.Error(), "is not supported yet") {
			t.Errorf("policy %d: Compile(%.50q) = %v, want 'not supported yet'", tt.ref, tt.src, err)
		}
		if err != nil && strings.Contains(err.Error(), "unknown") {
			t.Errorf("policy %d: %v says unknown, want not supported yet", tt.ref, err)
		}
	}
}

func TestCompileUnknownFieldValue(t *testing.T) {
	if _, err := Compile("true", Field(7)); err == nil {
		t.Error("Compile with an unknown Field succeeded")
	}
}

func TestExprAccessors(t *testing.T) {
	src := "eth.tx.to=='0xAb'  &&  eth.tx.value>1"
	e, err := Compile(src, Condition)
	if err != nil {
		t.Fatal(err)
	}
	if e.Source() != src || e.Field() != Condition || e.String() != "eth.tx.to == '0xAb' && eth.tx.value > 1" {
		t.Errorf("Source %q, Field %v, String %q", e.Source(), e.Field(), e.String())
	}
	if Condition.String() != "condition" || Consensus.String() != "consensus" || Field(9).String() != "Field(9)" {
		t.Error("Field.String")
	}
}

// An expression says whether it reads activity.params, so that a caller whose policies do not can leave them out.
func TestReadsParams(t *testing.T) {
	for src, want := range map[string]bool{
		"activity.params.otp_length == 6":                                             true,
		"activity.params['otp_length'] == 6":                                          true,
		"activity.type == 'ACTIVITY_TYPE_INIT_OTP' || activity.params.otp_length > 4": true,
		"activity.type == 'ACTIVITY_TYPE_INIT_OTP'":                                   false,
		"eth.tx.to == '0x5fbdb2315678afecb367f032d93f642f64180aa3'":                   false,
		"true": false,
	} {
		e, err := Compile(src, Condition)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if e.ReadsParams() != want {
			t.Errorf("%s: ReadsParams() = %v, want %v", src, e.ReadsParams(), want)
		}
	}
}

// The reference's documentation compares integer fields with quoted numbers; a quoted decimal literal compared with an
// int is that number.
func TestQuotedNumbersCompareWithInts(t *testing.T) {
	t.Parallel()
	in := &Input{Activity: factsOf(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", nil),
		EthTx: &EthTx{To: "0x1", ChainID: big.NewInt(8453), Value: big.NewInt(999), Nonce: big.NewInt(7)}}
	for src, want := range map[string]bool{
		"eth.tx.chain_id == '8453'":               true,
		"'8453' == eth.tx.chain_id":               true,
		"eth.tx.chain_id != '8453'":               false,
		"eth.tx.chain_id in ['1', '8453']":        true,
		"eth.tx.chain_id in ['1', '10']":          false,
		"eth.tx.value < '1000'":                   true,
		"'1000' <= eth.tx.value":                  false,
		"eth.tx.nonce == 7 && eth.tx.to == '0x1'": true,
	} {
		e, err := Compile(src, Condition)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got, err := e.Eval(in); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
}
