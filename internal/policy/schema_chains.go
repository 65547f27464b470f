package policy

// structList is a list of structs held by reference: its elements are read in place.
type structList[T any] []T

func (l *structList[T]) Len() int       { return len(*l) }
func (l *structList[T]) At(i int) value { return value{k: kindStruct, ref: &(*l)[i]} }

func structListField[T, E any](elem *typ, read func(*T) *[]E) *fieldDef {
	return &fieldDef{typ: listOf(elem), get: func(ref any) (value, error) {
		return listValue((*structList[E])(read(ref.(*T)))), nil
	}}
}

func stringsField[T any](read func(*T) *[]string) *fieldDef {
	return &fieldDef{typ: listOf(tString), get: func(ref any) (value, error) {
		return listValue((*stringList)(read(ref.(*T)))), nil
	}}
}

func uintsField[T any](read func(*T) *[]uint32) *fieldDef {
	return &fieldDef{typ: listOf(tInt), get: func(ref any) (value, error) {
		return listValue((*uintList)(read(ref.(*T)))), nil
	}}
}

func uint64Field[T any](read func(*T) uint64) *fieldDef {
	return &fieldDef{typ: tInt, get: func(ref any) (value, error) { return uintValue(read(ref.(*T))), nil }}
}

var (
	tSolanaParsedInstruction = structOf("solana parsed instruction data", map[string]*fieldDef{
		"instruction_name": strField(func(p *SolanaParsedInstruction) string { return p.InstructionName }),
		"discriminator":    strField(func(p *SolanaParsedInstruction) string { return p.Discriminator }),
		"named_accounts": {typ: tDyn, get: func(ref any) (value, error) {
			return value{k: kindDyn, ref: ref.(*SolanaParsedInstruction).NamedAccounts}, nil
		}},
		"program_call_args": {typ: tDyn, get: func(ref any) (value, error) {
			return value{k: kindDyn, ref: ref.(*SolanaParsedInstruction).ProgramCallArgs}, nil
		}},
	})
	tSolanaAccount = structOf("solana account", map[string]*fieldDef{
		"account_key": strField(func(a *SolanaAccount) string { return a.AccountKey }),
		"signer":      boolField(func(a *SolanaAccount) bool { return a.Signer }),
		"writable":    boolField(func(a *SolanaAccount) bool { return a.Writable }),
	})
	tSolanaInstructionLookup = structOf("solana instruction lookup", map[string]*fieldDef{
		"address_table_key": strField(func(l *SolanaInstructionLookup) string { return l.AddressTableKey }),
		"index":             uint64Field(func(l *SolanaInstructionLookup) uint64 { return uint64(l.Index) }),
		"writable":          boolField(func(l *SolanaInstructionLookup) bool { return l.Writable }),
	})
	tSolanaInstruction = structOf("solana instruction", map[string]*fieldDef{
		"program_key":          strField(func(i *SolanaInstruction) string { return i.ProgramKey }),
		"accounts":             structListField(tSolanaAccount, func(i *SolanaInstruction) *[]SolanaAccount { return &i.Accounts }),
		"instruction_data_hex": strField(func(i *SolanaInstruction) string { return i.InstructionDataHex }),
		"address_table_lookups": structListField(tSolanaInstructionLookup, func(i *SolanaInstruction) *[]SolanaInstructionLookup {
			return &i.AddressTableLookups
		}),
		// Decoded with the IDL uploaded for the program (create_smart_contract_interface); absent without one.
		"parsed_instruction_data": structField(tSolanaParsedInstruction, func(ref any) (any, error) {
			if p := ref.(*SolanaInstruction).Parsed; p != nil {
				return p, nil
			}
			return nil, evalErrorf(Absent, "no uploaded IDL decodes this instruction")
		}),
	})
	tSolanaTransfer = structOf("solana transfer", map[string]*fieldDef{
		"from":   strField(func(t *SolanaTransfer) string { return t.From }),
		"to":     strField(func(t *SolanaTransfer) string { return t.To }),
		"amount": uint64Field(func(t *SolanaTransfer) uint64 { return t.Amount }),
	})
	tSolanaSPLTransfer = structOf("solana SPL transfer", map[string]*fieldDef{
		"from":       strField(func(t *SolanaSPLTransfer) string { return t.From }),
		"to":         strField(func(t *SolanaSPLTransfer) string { return t.To }),
		"owner":      strField(func(t *SolanaSPLTransfer) string { return t.Owner }),
		"token_mint": strField(func(t *SolanaSPLTransfer) string { return t.TokenMint }),
		"amount":     uint64Field(func(t *SolanaSPLTransfer) uint64 { return t.Amount }),
		"signers":    stringsField(func(t *SolanaSPLTransfer) *[]string { return &t.Signers }),
	})
	tSolanaLookup = structOf("solana address table lookup", map[string]*fieldDef{
		"address_table_key": strField(func(l *SolanaAddressTableLookup) string { return l.AddressTableKey }),
		"writable_indexes":  uintsField(func(l *SolanaAddressTableLookup) *[]uint32 { return &l.WritableIndexes }),
		"readonly_indexes":  uintsField(func(l *SolanaAddressTableLookup) *[]uint32 { return &l.ReadonlyIndexes }),
	})
	tSolanaTx = structOf("solana.tx", map[string]*fieldDef{
		"account_keys":     stringsField(func(t *SolanaTx) *[]string { return &t.AccountKeys }),
		"program_keys":     stringsField(func(t *SolanaTx) *[]string { return &t.ProgramKeys }),
		"recent_blockhash": strField(func(t *SolanaTx) string { return t.RecentBlockhash }),
		"instructions":     structListField(tSolanaInstruction, func(t *SolanaTx) *[]SolanaInstruction { return &t.Instructions }),
		"transfers":        structListField(tSolanaTransfer, func(t *SolanaTx) *[]SolanaTransfer { return &t.Transfers }),
		"spl_transfers":    structListField(tSolanaSPLTransfer, func(t *SolanaTx) *[]SolanaSPLTransfer { return &t.SPLTransfers }),
		"address_table_lookups": structListField(tSolanaLookup, func(t *SolanaTx) *[]SolanaAddressTableLookup {
			return &t.AddressTableLookups
		}),
	})
	// solana is a namespace: its value is the Input, and tx checks presence.
	tSolana = structOf("solana", map[string]*fieldDef{
		"tx": structField(tSolanaTx, func(ref any) (any, error) { return present(ref.(*Input).SolanaTx) }),
	})
)

var (
	tBitcoinInput = structOf("bitcoin input", map[string]*fieldDef{
		"tx_id":    strField(func(i *BitcoinInput) string { return i.TxID }),
		"vout":     uint64Field(func(i *BitcoinInput) uint64 { return uint64(i.Vout) }),
		"sequence": uint64Field(func(i *BitcoinInput) uint64 { return uint64(i.Sequence) }),
	})
	tBitcoinOutput = structOf("bitcoin output", map[string]*fieldDef{
		"value":         uint64Field(func(o *BitcoinOutput) uint64 { return o.Value }),
		"script_pubkey": strField(func(o *BitcoinOutput) string { return o.ScriptPubKey }),
		"address":       strField(func(o *BitcoinOutput) string { return o.Address }),
		"address_type":  strField(func(o *BitcoinOutput) string { return o.AddressType }),
	})
	tBitcoinLocktime = structOf("bitcoin locktime", map[string]*fieldDef{
		"amount": uint64Field(func(l *BitcoinLocktime) uint64 { return l.Amount }),
		"type":   strField(func(l *BitcoinLocktime) string { return l.Type }),
	})
	tBitcoinTx = structOf("bitcoin.tx", map[string]*fieldDef{
		"version":  strField(func(t *BitcoinTx) string { return t.Version }),
		"inputs":   structListField(tBitcoinInput, func(t *BitcoinTx) *[]BitcoinInput { return &t.Inputs }),
		"outputs":  structListField(tBitcoinOutput, func(t *BitcoinTx) *[]BitcoinOutput { return &t.Outputs }),
		"locktime": structField(tBitcoinLocktime, func(ref any) (any, error) { return &ref.(*BitcoinTx).Locktime, nil }),
		"fee": {typ: tInt, get: func(ref any) (value, error) {
			fee := ref.(*BitcoinTx).Fee
			if fee == nil {
				return value{}, evalErrorf(Absent, "the fee is unknown: the PSBT must give every input's previous transaction, as a segwit v0 signature does not commit to the other inputs' amounts (a signer of a taproot input, whose signature commits to every amount, needs none)")
			}
			return uintValue(*fee), nil
		}},
	})
	tBitcoin = structOf("bitcoin", map[string]*fieldDef{
		"tx": structField(tBitcoinTx, func(ref any) (any, error) { return present(ref.(*Input).BitcoinTx) }),
	})
)

// notOnType is the error for a field of tron.tx.contract[] that the contract's type does not have.
func notOnType(c *TronContract) error {
	return evalErrorf(Absent, "a %s has no such field", c.Type)
}

func tronStr(read func(*TronContract) *string) *fieldDef {
	return &fieldDef{typ: tString, get: func(ref any) (value, error) {
		c := ref.(*TronContract)
		if p := read(c); p != nil {
			return stringValue(*p), nil
		}
		return value{}, notOnType(c)
	}}
}

func tronUint(read func(*TronContract) *uint64) *fieldDef {
	return &fieldDef{typ: tInt, get: func(ref any) (value, error) {
		c := ref.(*TronContract)
		if p := read(c); p != nil {
			return uintValue(*p), nil
		}
		return value{}, notOnType(c)
	}}
}

func tronPermission(read func(*TronContract) *TronPermission) *fieldDef {
	return structField(tTronPermission, func(ref any) (any, error) {
		c := ref.(*TronContract)
		if p := read(c); p != nil {
			return p, nil
		}
		return nil, notOnType(c)
	})
}

var (
	tTronKey = structOf("tron key", map[string]*fieldDef{
		"address": strField(func(k *TronKey) string { return k.Address }),
		"weight":  uint64Field(func(k *TronKey) uint64 { return k.Weight }),
	})
	tTronPermission = structOf("tron permission", map[string]*fieldDef{
		"type":            strField(func(p *TronPermission) string { return p.Type }),
		"id":              uint64Field(func(p *TronPermission) uint64 { return p.ID }),
		"permission_name": strField(func(p *TronPermission) string { return p.PermissionName }),
		"threshold":       uint64Field(func(p *TronPermission) uint64 { return p.Threshold }),
		"parent_id":       uint64Field(func(p *TronPermission) uint64 { return p.ParentID }),
		"operations":      strField(func(p *TronPermission) string { return p.Operations }),
		"keys":            structListField(tTronKey, func(p *TronPermission) *[]TronKey { return &p.Keys }),
	})
	tTronContract = structOf("tron contract", map[string]*fieldDef{
		"type":             strField(func(c *TronContract) string { return c.Type }),
		"permission_id":    uint64Field(func(c *TronContract) uint64 { return c.PermissionID }),
		"owner_address":    tronStr(func(c *TronContract) *string { return c.OwnerAddress }),
		"to_address":       tronStr(func(c *TronContract) *string { return c.ToAddress }),
		"contract_address": tronStr(func(c *TronContract) *string { return c.ContractAddress }),
		"receiver_address": tronStr(func(c *TronContract) *string { return c.ReceiverAddress }),
		"amount":           tronUint(func(c *TronContract) *uint64 { return c.Amount }),
		"call_value":       tronUint(func(c *TronContract) *uint64 { return c.CallValue }),
		"call_token_value": tronUint(func(c *TronContract) *uint64 { return c.CallTokenValue }),
		"token_id":         tronUint(func(c *TronContract) *uint64 { return c.TokenID }),
		"balance":          tronUint(func(c *TronContract) *uint64 { return c.Balance }),
		"lock_period":      tronUint(func(c *TronContract) *uint64 { return c.LockPeriod }),
		"frozen_balance":   tronUint(func(c *TronContract) *uint64 { return c.FrozenBalance }),
		"unfreeze_balance": tronUint(func(c *TronContract) *uint64 { return c.UnfreezeBalance }),
		"data":             tronStr(func(c *TronContract) *string { return c.Data }),
		"resource":         tronStr(func(c *TronContract) *string { return c.Resource }),
		"lock": {typ: tBool, get: func(ref any) (value, error) {
			c := ref.(*TronContract)
			if c.Lock == nil {
				return value{}, notOnType(c)
			}
			return boolValue(*c.Lock), nil
		}},
		"owner":   tronPermission(func(c *TronContract) *TronPermission { return c.Owner }),
		"witness": tronPermission(func(c *TronContract) *TronPermission { return c.Witness }),
		"actives": {typ: listOf(tTronPermission), get: func(ref any) (value, error) {
			c := ref.(*TronContract)
			if c.Actives == nil {
				return value{}, notOnType(c)
			}
			return listValue((*structList[TronPermission])(&c.Actives)), nil
		}},
	})
	tTronTx = structOf("tron.tx", map[string]*fieldDef{
		"ref_block_bytes": strField(func(t *TronTx) string { return t.RefBlockBytes }),
		"ref_block_hash":  strField(func(t *TronTx) string { return t.RefBlockHash }),
		"expiration":      uint64Field(func(t *TronTx) uint64 { return t.Expiration }),
		"timestamp":       uint64Field(func(t *TronTx) uint64 { return t.Timestamp }),
		"data":            strField(func(t *TronTx) string { return t.Data }),
		"fee_limit":       uint64Field(func(t *TronTx) uint64 { return t.FeeLimit }),
		"contract":        structListField(tTronContract, func(t *TronTx) *[]TronContract { return &t.Contract }),
	})
	tTron = structOf("tron", map[string]*fieldDef{
		"tx": structField(tTronTx, func(ref any) (any, error) { return present(ref.(*Input).TronTx) }),
	})
)
