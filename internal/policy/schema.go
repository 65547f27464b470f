package policy

import (
	"math/big"
	"sort"
)

// getter reads one field of a struct value; ref is the struct's Go pointer.
type getter func(ref any) (value, error)

type fieldDef struct {
	typ *typ
	get getter
	str func(ref any) string       // set for string fields: the fast path of string comparisons
	ref func(ref any) (any, error) // set for struct fields: the fast path of paths
}

type structType struct {
	name   string
	fields map[string]*fieldDef
	// keyed: fields may also be read as m['name'] (activity.params is a map).
	keyed bool
}

func (s *structType) fieldNames() []string {
	names := make([]string, 0, len(s.fields))
	for n := range s.fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// rootDef is a keyword: the start of every path.
type rootDef struct {
	field Field // the policy field it may appear in
	typ   *typ
	get   func(in *Input) (value, error)
	ref   func(in *Input) (any, error) // set for struct keywords
}

func structRoot(field Field, t *typ, read func(in *Input) (any, error)) *rootDef {
	return &rootDef{field: field, typ: t, ref: read, get: func(in *Input) (value, error) {
		r, err := read(in)
		if err != nil {
			return value{}, err
		}
		return value{k: kindStruct, ref: r}, nil
	}}
}

// structField is a field whose value is a struct, read as its Go pointer.
func structField(t *typ, read func(ref any) (any, error)) *fieldDef {
	return &fieldDef{typ: t, ref: read, get: func(x any) (value, error) {
		r, err := read(x)
		if err != nil {
			return value{}, err
		}
		return value{k: kindStruct, ref: r}, nil
	}}
}

func structOf(name string, fields map[string]*fieldDef) *typ {
	return &typ{kind: kindStruct, st: &structType{name: name, fields: fields}}
}

func strField[T any](read func(*T) string) *fieldDef {
	return &fieldDef{
		typ: tString,
		get: func(ref any) (value, error) { return stringValue(read(ref.(*T))), nil },
		str: func(ref any) string { return read(ref.(*T)) },
	}
}

func boolField[T any](read func(*T) bool) *fieldDef {
	return &fieldDef{typ: tBool, get: func(ref any) (value, error) { return boolValue(read(ref.(*T))), nil }}
}

func bigField[T any](read func(*T) *big.Int) *fieldDef {
	return &fieldDef{typ: tInt, get: func(ref any) (value, error) { return bigValue(read(ref.(*T))) }}
}

func listField[T any](elem *typ, read func(*T) list) *fieldDef {
	return &fieldDef{typ: listOf(elem), get: func(ref any) (value, error) { return listValue(read(ref.(*T))), nil }}
}

// callField is a field of eth.tx read from the calldata decoded with an uploaded ABI; absent without one.
func callField(read func(*ContractCall) value, t *typ) *fieldDef {
	return &fieldDef{typ: t, get: func(ref any) (value, error) {
		c := ref.(*EthTx).Call
		if c == nil {
			return value{}, evalErrorf(Absent, "no uploaded contract interface decodes this call")
		}
		return read(c), nil
	}}
}

// notApplicable is the error for a keyword the request does not carry; the failing
// node adds the keyword's path as the clause.
func notApplicable() error {
	return evalErrorf(NotApplicable, "does not apply to this request")
}

var (
	tUser = structOf("User", map[string]*fieldDef{
		"id":    strField(func(u *User) string { return u.ID }),
		"email": strField(func(u *User) string { return u.Email }),
		"alias": strField(func(u *User) string { return u.Alias }),
		"tags":  listField(tString, func(u *User) list { return (*stringList)(&u.Tags) }),
	})
	tCredential = structOf("Credential", map[string]*fieldDef{
		"id":            strField(func(c *Credential) string { return c.ID }),
		"user_id":       strField(func(c *Credential) string { return c.UserID }),
		"public_key":    strField(func(c *Credential) string { return c.PublicKey }),
		"credential_id": strField(func(c *Credential) string { return c.CredentialID }),
		"type":          strField(func(c *Credential) string { return c.Type }),
	})
	tWallet = structOf("Wallet", map[string]*fieldDef{
		"id":       strField(func(w *Wallet) string { return w.ID }),
		"label":    strField(func(w *Wallet) string { return w.Label }),
		"imported": boolField(func(w *Wallet) bool { return w.Imported }),
		"exported": boolField(func(w *Wallet) bool { return w.Exported }),
	})
	tWalletAccount = structOf("WalletAccount", map[string]*fieldDef{
		"address":       strField(func(a *WalletAccount) string { return a.Address }),
		"path_indexes":  listField(tInt, func(a *WalletAccount) list { return (*uintList)(&a.PathIndexes) }),
		"path_hardened": listField(tBool, func(a *WalletAccount) list { return (*boolList)(&a.PathHardened) }),
	})
	tSecret = structOf("Secret", map[string]*fieldDef{
		"id":   strField(func(x *Secret) string { return x.ID }),
		"name": strField(func(x *Secret) string { return x.Name }),
		"static_properties": {typ: tDyn, get: func(ref any) (value, error) {
			return value{k: kindDyn, ref: ref.(*Secret).properties()}, nil
		}},
	})
	tPrivateKey = structOf("PrivateKey", map[string]*fieldDef{
		"id":       strField(func(k *PrivateKey) string { return k.ID }),
		"label":    strField(func(k *PrivateKey) string { return k.Label }),
		"tags":     listField(tString, func(k *PrivateKey) list { return (*stringList)(&k.Tags) }),
		"imported": boolField(func(k *PrivateKey) bool { return k.Imported }),
		"exported": boolField(func(k *PrivateKey) bool { return k.Exported }),
	})

	tEthTx = structOf("eth.tx", map[string]*fieldDef{
		"from":                     strField(func(t *EthTx) string { return t.From }),
		"to":                       strField(func(t *EthTx) string { return t.To }),
		"data":                     strField(func(t *EthTx) string { return t.Data }),
		"type":                     strField(func(t *EthTx) string { return t.Type }),
		"value":                    bigField(func(t *EthTx) *big.Int { return t.Value }),
		"gas":                      bigField(func(t *EthTx) *big.Int { return t.Gas }),
		"gas_price":                bigField(func(t *EthTx) *big.Int { return t.GasPrice }),
		"chain_id":                 bigField(func(t *EthTx) *big.Int { return t.ChainID }),
		"nonce":                    bigField(func(t *EthTx) *big.Int { return t.Nonce }),
		"max_fee_per_gas":          bigField(func(t *EthTx) *big.Int { return t.MaxFeePerGas }),
		"max_priority_fee_per_gas": bigField(func(t *EthTx) *big.Int { return t.MaxPriorityFeePerGas }),
		"max_fee_per_blob_gas":     bigField(func(t *EthTx) *big.Int { return t.MaxFeePerBlobGas }),
		"function_name":            callField(func(c *ContractCall) value { return stringValue(c.FunctionName) }, tString),
		"function_signature":       callField(func(c *ContractCall) value { return stringValue(functionSelector(c.FunctionSignature)) }, tString),
		"contract_call_args":       callField(func(c *ContractCall) value { return value{k: kindDyn, ref: c.Args} }, tDyn),
	})
	tEIP712Domain = structOf("eth.eip_712.domain", map[string]*fieldDef{
		"name":               strField(func(d *EIP712Domain) string { return d.Name }),
		"version":            strField(func(d *EIP712Domain) string { return d.Version }),
		"chain_id":           bigField(func(d *EIP712Domain) *big.Int { return d.ChainID }),
		"verifying_contract": strField(func(d *EIP712Domain) string { return d.VerifyingContract }),
	})
	tEIP712 = structOf("eth.eip_712", map[string]*fieldDef{
		"primary_type": strField(func(e *EIP712) string { return e.PrimaryType }),
		"domain": structField(tEIP712Domain, func(ref any) (any, error) {
			return &ref.(*EIP712).Domain, nil
		}),
		"message": {typ: tDyn, get: func(ref any) (value, error) {
			return value{k: kindDyn, ref: ref.(*EIP712).Message}, nil
		}},
	})
	tEIP7702 = structOf("eth.eip_7702_authorization", map[string]*fieldDef{
		"address":  strField(func(a *EIP7702Authorization) string { return a.Address }),
		"chain_id": bigField(func(a *EIP7702Authorization) *big.Int { return a.ChainID }),
		"nonce":    bigField(func(a *EIP7702Authorization) *big.Int { return a.Nonce }),
	})
	// eth is a namespace: its value is the Input, and each member checks presence.
	tEth = structOf("eth", map[string]*fieldDef{
		"tx": structField(tEthTx, func(ref any) (any, error) {
			return present(ref.(*Input).EthTx)
		}),
		"eip_712": structField(tEIP712, func(ref any) (any, error) {
			return present(ref.(*Input).EIP712)
		}),
		"eip_7702_authorization": structField(tEIP7702, func(ref any) (any, error) {
			return present(ref.(*Input).EIP7702Authorization)
		}),
	})
	tParams   = paramsType()
	tActivity = structOf("activity", map[string]*fieldDef{
		"type":     strField(func(a *Activity) string { return a.Type }),
		"kind":     {typ: tString, get: activityKind},
		"resource": strField(func(a *Activity) string { return a.Resource }),
		"action":   strField(func(a *Activity) string { return a.Action }),
		"params": structField(tParams, func(ref any) (any, error) {
			return ref, nil // params read the *Activity
		}),
	})
)

// present returns p, or NotApplicable when the request does not carry it.
func present[T any](p *T) (any, error) {
	if p == nil {
		return nil, notApplicable()
	}
	return p, nil
}

// activityKind fails for activities without a kind (the root-only ones), so a policy
// on activity.kind can never match them by accident.
func activityKind(ref any) (value, error) {
	a := ref.(*Activity)
	if a.Kind == "" {
		return value{}, evalErrorf(NotApplicable, "activity %s has no kind: policies do not govern it", a.Type)
	}
	return stringValue(a.Kind), nil
}

// paramsType is the vocabulary of activity.params (Params); which of them a given
// activity has is known only at evaluation (MissingField otherwise).
func paramsType() *typ {
	fields := map[string]*fieldDef{}
	for _, p := range Params {
		fields[p.Name] = paramField(p)
	}
	t := structOf("activity.params", fields)
	t.st.keyed = true
	return t
}

func paramField(p Param) *fieldDef {
	var t *typ
	switch p.Type {
	case "string":
		t = tString
	case "int":
		t = tInt
	case "bool":
		t = tBool
	case "list<string>":
		t = listOf(tString)
	default:
		panic("policy: parameter type " + p.Type)
	}
	name := p.Name
	return &fieldDef{typ: t, get: func(ref any) (value, error) {
		a := ref.(*Activity)
		raw, ok := a.Params[name]
		if !ok {
			return value{}, evalErrorf(MissingField, "activity %s has no parameter %q", a.Type, name)
		}
		v, ok := paramValue(raw, t)
		if !ok {
			return value{}, evalErrorf(TypeMismatch, "parameter %q holds a %T, want %s", name, raw, t)
		}
		return v, nil
	}}
}

func paramValue(raw any, t *typ) (value, bool) {
	switch x := raw.(type) {
	case string:
		return stringValue(x), t.kind == kindString
	case bool:
		return boolValue(x), t.kind == kindBool
	case []string:
		return value{k: kindList, ref: raw}, t.kind == kindList // raw, not x: no new box
	case int:
		return uintValue(uint64(x)), t.kind == kindInt && x >= 0
	case int64:
		return uintValue(uint64(x)), t.kind == kindInt && x >= 0
	case uint64:
		return uintValue(x), t.kind == kindInt
	case *big.Int:
		v, err := bigValue(x)
		return v, err == nil && t.kind == kindInt
	}
	return value{}, false
}

// unsupportedRoots are keywords of the reference that Sigil cannot evaluate yet.
var unsupportedRoots = map[string]string{
	"tempo": "'tempo.tx' is not supported yet: Sigil does not parse Tempo transactions",
}

var roots = map[string]*rootDef{
	"approvers": {field: Consensus, typ: listOf(tUser), get: func(in *Input) (value, error) {
		return listValue((*userList)(&in.Approvers)), nil
	}},
	"credentials": {field: Consensus, typ: listOf(tCredential), get: func(in *Input) (value, error) {
		return listValue((*credList)(&in.Credentials)), nil
	}},
	"time":     structRoot(Time, tTime, timeRoot),
	"controls": structRoot(Condition, tControls, func(in *Input) (any, error) { return in, nil }),
	"activity": structRoot(Condition, tActivity, func(in *Input) (any, error) { return &in.Activity, nil }),
	"eth":      structRoot(Condition, tEth, func(in *Input) (any, error) { return in, nil }),
	"solana":   structRoot(Condition, tSolana, func(in *Input) (any, error) { return in, nil }),
	"bitcoin":  structRoot(Condition, tBitcoin, func(in *Input) (any, error) { return in, nil }),
	"tron":     structRoot(Condition, tTron, func(in *Input) (any, error) { return in, nil }),
	"wallet":   structRoot(Condition, tWallet, func(in *Input) (any, error) { return present(in.Wallet) }),
	"wallets": {field: Condition, typ: listOf(tWallet), get: func(in *Input) (value, error) {
		if in.Wallets == nil {
			return value{}, notApplicable()
		}
		return listValue((*walletList)(&in.Wallets)), nil
	}},
	"wallet_account": structRoot(Condition, tWalletAccount, func(in *Input) (any, error) { return present(in.WalletAccount) }),
	"private_key":    structRoot(Condition, tPrivateKey, func(in *Input) (any, error) { return present(in.PrivateKey) }),
	"secret":         structRoot(Condition, tSecret, func(in *Input) (any, error) { return present(in.Secret) }),
}

func rootNames(f Field) []string {
	var names []string
	for n, r := range roots {
		if r.field == f {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
