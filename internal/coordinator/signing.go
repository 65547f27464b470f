package coordinator

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

const maxPayloadsPerCall = 100

// The signing activities: each parses what it signs when it is checked, resolves its signer for the decision, and
// signs what it parsed with the key it resolved.
var (
	signTransactionV2 = signing(api.SignTransactionV2, []policy.Param{policy.ParamTxType},
		checkSignTransaction, prepareSignTransaction, execSignTransaction)
	signRawPayloadV2 = signing(api.SignRawPayloadV2, []policy.Param{policy.ParamHashFunction, policy.ParamEncoding},
		checkSignRawPayload, prepareSignRawPayload, execSignRawPayload)
	signRawPayloads = signing(api.SignRawPayloads, []policy.Param{policy.ParamHashFunction, policy.ParamEncoding},
		checkSignRawPayloads, prepareSignRawPayloads, execSignRawPayloads)
)

// signer is the key a signing activity names with signWith: a wallet account (by address or id) or a private key (by
// id or one of its addresses).
type signer struct {
	curve      keys.Curve
	keySecret  string
	publicKey  string
	wallet     *Wallet
	account    *WalletAccount
	privateKey *PrivateKey
	ethAddress string // the key's stored Ethereum address, when it has one
	// bitcoin is the Bitcoin address format signWith names (or, for a private key named by id, its first one): its
	// network renders the addresses of bitcoin.tx. ok is false when the signer has none.
	bitcoin   keys.BitcoinFormat
	bitcoinOK bool
	// schnorr says how raw payloads are signed when signWith names a Bitcoin P2TR address (Schnorr with the key tweaked
	// as BIP-86) or a Spark address (plain BIP-340 Schnorr); ECDSA otherwise.
	schnorr schnorrScheme
}

type schnorrScheme int

const (
	ecdsaScheme schnorrScheme = iota
	taprootScheme
	sparkScheme
)

// schnorrFor is the raw-payload scheme of an address format.
func schnorrFor(format string) schnorrScheme {
	if f, ok := keys.ParseBitcoinFormat(keys.AddressFormat(format)); ok && f.Script == keys.ScriptP2TR {
		return taprootScheme
	}
	if format == string(keys.AddressFormatSparkMainnet) || format == string(keys.AddressFormatSparkRegtest) {
		return sparkScheme
	}
	return ecdsaScheme
}

// signer finds the key signWith names in the execution's organization.
func (x *execution) signer(signWith string) (*signer, error) {
	return x.c.signer(x.ctx, x.accounts(), x.org, signWith)
}

// signer finds the key signWith names in org: a wallet account by its index (id or address), remembered while it
// stays true (accountCache), else a private key of the document. A wallet account comes first, as it always has when
// one address is both.
func (c *Coordinator) signer(ctx context.Context, db store.AccountReader, org *Org, signWith string) (*signer, error) {
	a, err := c.accountNamed(ctx, db, org, signWith)
	if err != nil {
		return nil, err
	}
	if a != nil {
		if w := org.Wallet(a.WalletID); w != nil {
			s := &signer{curve: keys.Curve(a.Curve), keySecret: a.KeySecret, publicKey: a.PublicKey, wallet: w, account: a}
			if a.AddressFormat == string(keys.AddressFormatEthereum) {
				s.ethAddress = a.Address
			}
			s.bitcoin, s.bitcoinOK = keys.ParseBitcoinFormat(keys.AddressFormat(a.AddressFormat))
			s.schnorr = schnorrFor(a.AddressFormat)
			return s, nil
		}
	}
	for _, k := range org.PrivateKeys {
		if k.ID == signWith || k.matchesAddress(signWith) {
			s := &signer{curve: keys.Curve(k.Curve), keySecret: k.KeySecret, publicKey: k.PublicKey, privateKey: k}
			for _, a := range k.Addresses {
				if a.Format == string(keys.AddressFormatEthereum) {
					s.ethAddress = a.Address
				}
				if f, ok := keys.ParseBitcoinFormat(keys.AddressFormat(a.Format)); ok && (!s.bitcoinOK || sameAddress(a.Address, signWith)) {
					s.bitcoin, s.bitcoinOK = f, true
				}
				if sameAddress(a.Address, signWith) {
					s.schnorr = schnorrFor(a.Format)
				}
			}
			return s, nil
		}
	}
	return nil, apierr.New(apierr.InvalidArgument, "REQUEST_INVALID", "parameters.signWith: no wallet account or private key %q in this organization", signWith)
}

// accountNamed is the wallet account signWith names in org (by id, or by address), nil for none. Read outside a
// transaction, what is found is remembered; a transaction reads its own rows.
func (c *Coordinator) accountNamed(ctx context.Context, db store.AccountReader, org *Org, signWith string) (*WalletAccount, error) {
	_, inTx := db.(*store.Tx)
	if !inTx {
		if a, ok := c.accountMemos.get(org, signWith); ok {
			return a, nil
		}
	}
	by := store.AccountKey{AddressKey: addressKey(signWith)}
	if uuid.Validate(signWith) == nil {
		by = store.AccountKey{ID: signWith}
	}
	a, err := findAccount(ctx, db, org.ID, by)
	if err == nil && !inTx {
		c.accountMemos.put(org, signWith, a)
	}
	return a, err
}

func (k *PrivateKey) matchesAddress(a string) bool {
	for _, addr := range k.Addresses {
		if sameAddress(addr.Address, a) {
			return true
		}
	}
	return false
}

// ethereumAddress is the signer's Ethereum address (secp256k1 keys only).
func (s *signer) ethereumAddress() (string, error) {
	if s.curve != keys.CurveSecp256k1 {
		return "", apierr.Invalid("parameters.signWith: an Ethereum transaction needs a CURVE_SECP256K1 key, this one is %s", s.curve)
	}
	if s.ethAddress != "" {
		return s.ethAddress, nil
	}
	pub, err := hexBytes(s.publicKey)
	if err != nil {
		return "", err
	}
	return keys.Address(s.curve, keys.AddressFormatEthereum, pub)
}

// facts are what the policy keywords wallet, wallets, wallet_account and private_key read about the signer.
func (s *signer) facts(in *policy.Input) {
	if s.wallet != nil {
		w := policy.Wallet{ID: s.wallet.ID, Label: s.wallet.Name, Imported: s.wallet.Imported, Exported: s.wallet.Exported}
		in.Wallet, in.Wallets = &w, []policy.Wallet{w}
		p, _ := keys.ParsePath(s.account.Path)
		in.WalletAccount = &policy.WalletAccount{Address: s.account.Address, PathIndexes: p.Indexes(), PathHardened: p.Hardened()}
	}
	if s.privateKey != nil {
		k := s.privateKey
		in.PrivateKey = &policy.PrivateKey{ID: k.ID, Label: k.Name, Tags: k.Tags, Imported: k.Imported, Exported: k.Exported}
	}
}

// groupID is the wallet (or the private key) a signer belongs to, which velocity controls may count by.
func (s *signer) groupID() string {
	if s.wallet != nil {
		return s.wallet.ID
	}
	return s.privateKey.ID
}

// sign opens the signer's sealed key for this one call, signs, and wipes the key.
func (x *execution) sign(s *signer, fn func(key []byte) error) error {
	key, err := x.openSecret(s.keySecret)
	if err != nil {
		return err
	}
	defer keys.Zero(key)
	return fn(key)
}

// parsedTx is a transaction SIGN_TRANSACTION_V2 parsed, of one chain (signing_<chain>.go).
type parsedTx interface {
	// prepare checks that s can sign the transaction and returns what the policy engine reads of it (the chain's
	// keyword: eth.tx, solana.tx, ...) and the signing step bound to what it resolved.
	prepare(s *signer) (*policy.Input, signTx, error)
}

// signTx signs a prepared transaction with the signer's private key and returns the signed transaction, hex
// without 0x.
type signTx func(key []byte) (string, error)

// txParsers parse an unsigned transaction of each supported type.
var txParsers = map[string]func(unsigned string) (parsedTx, error){
	api.TransactionTypeEthereum: parseEthereumTx,
	api.TransactionTypeSolana:   parseSolanaTx,
	api.TransactionTypeBitcoin:  parseBitcoinTx,
	api.TransactionTypeTron:     parseTronTx,
}

// checkSignTransaction checks p and parses its transaction, refusing a type it does not sign and a transaction that
// does not parse.
func checkSignTransaction(p *api.SignTransactionIntentV2) (parsedTx, error) {
	if err := checkSignWith(p.SignWith); err != nil {
		return nil, err
	}
	parse, ok := txParsers[p.Type]
	if !ok {
		return nil, apierr.New(apierr.InvalidArgument, "UNSUPPORTED_TRANSACTION_TYPE", "parameters.type: %q is not supported; this server signs %s", p.Type, supportedTxTypes())
	}
	tx, err := parse(p.UnsignedTransaction)
	if err != nil {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION", "parameters.unsignedTransaction: %s", err.Error())
	}
	return tx, nil
}

func supportedTxTypes() string {
	types := make([]string, 0, len(txParsers))
	for t := range txParsers {
		types = append(types, t)
	}
	sort.Strings(types)
	return strings.Join(types, ", ")
}

// txSigning is a transaction with its signer resolved: what the execute step signs.
type txSigning struct {
	signer *signer
	sign   signTx
}

// prepareSignTransaction resolves p's signer beside the transaction its check parsed, and gives the policy engine
// both: the result is what the execute step signs.
func prepareSignTransaction(x *execution, p *api.SignTransactionIntentV2, tx parsedTx, d *decisionRequest) (*txSigning, error) {
	s, err := x.signer(p.SignWith)
	if err != nil {
		return nil, err
	}
	facts, sign, err := tx.prepare(s)
	if err != nil {
		return nil, err
	}
	if eth, ok := tx.(ethereumTx); ok {
		// Calldata an uploaded ABI decodes (Solana's instructions an IDL decodes, below). Velocity controls measure the
		// transfers of EVM and Solana transactions.
		if facts.EthTx.Call, err = x.c.contractCall(x.ctx, x.org, facts.EthTx.To, eth.tx.Transaction().Data()); err != nil {
			return nil, err
		}
		d.moves = eth.tx.Moves(common.HexToAddress(facts.EthTx.From))
	}
	if sol, ok := tx.(solanaTx); ok {
		pub, _ := hexBytes(s.publicKey) // prepare checked it is an Ed25519 key
		d.moves = solanaMoves(sol.tx.Parsed, keys.Base58Encode(pub))
		if err := x.c.decodeInstructions(x.ctx, x.org, sol.tx, facts.SolanaTx); err != nil {
			return nil, err
		}
	}
	d.facts = facts
	s.facts(d.facts)
	d.walletID = s.groupID()
	return &txSigning{signer: s, sign: sign}, nil
}

func execSignTransaction(x *execution, _ *api.SignTransactionIntentV2, t *txSigning) (*api.SignTransactionResult, error) {
	var signed string
	err := x.sign(t.signer, func(key []byte) (err error) {
		signed, err = t.sign(key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &api.SignTransactionResult{SignedTransaction: signed}, nil
}

// ethereumTx is an unsigned Ethereum transaction.
type ethereumTx struct{ tx *evm.UnsignedTx }

func parseEthereumTx(unsigned string) (parsedTx, error) {
	tx, err := evm.DecodeUnsignedTransaction(unsigned)
	if err != nil {
		return nil, err
	}
	return ethereumTx{tx}, nil
}

// prepare gives eth.tx, with the signer's address as the sender.
func (t ethereumTx) prepare(s *signer) (*policy.Input, signTx, error) {
	from, err := s.ethereumAddress()
	if err != nil {
		return nil, nil, err
	}
	v := t.tx.View(strings.ToLower(from))
	facts := &policy.Input{EthTx: &policy.EthTx{From: v.From, To: v.To, Data: v.Data, Type: v.Type, Value: v.Value, Gas: v.Gas,
		GasPrice: v.GasPrice, ChainID: v.ChainID, Nonce: v.Nonce, MaxFeePerGas: v.MaxFeePerGas,
		MaxPriorityFeePerGas: v.MaxPriorityFeePerGas, MaxFeePerBlobGas: v.MaxFeePerBlobGas}}
	return facts, t.tx.Sign, nil
}

// decodeTxHex decodes a transaction's hex (0x optional).
func decodeTxHex(unsigned string) ([]byte, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(unsigned, "0x"), "0X")
	if h == "" {
		return nil, errors.New("the transaction is empty")
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, errors.New("the transaction is not hex")
	}
	return b, nil
}

func checkSignWith(signWith string) error {
	if signWith == "" {
		return apierr.Invalid("parameters.signWith must name a wallet account address or a private key")
	}
	return nil
}

func parsePayload(path, payload, encoding, hash string) (*evm.RawPayload, error) {
	rp, err := evm.ParseRawPayload(payload, evm.PayloadEncoding(encoding), evm.HashFunction(hash))
	if err != nil {
		return nil, apierr.Invalid("%s: %s", path, err.Error())
	}
	return rp, nil
}

// checkSignRawPayload checks p and parses its payload.
func checkSignRawPayload(p *api.SignRawPayloadIntentV2) ([]*evm.RawPayload, error) {
	if err := checkSignWith(p.SignWith); err != nil {
		return nil, err
	}
	rp, err := parsePayload("parameters.payload", p.Payload, p.Encoding, p.HashFunction)
	if err != nil {
		return nil, err
	}
	return []*evm.RawPayload{rp}, nil
}

// checkSignRawPayloads checks p and parses its payloads.
func checkSignRawPayloads(p *api.SignRawPayloadsIntent) ([]*evm.RawPayload, error) {
	if err := checkSignWith(p.SignWith); err != nil {
		return nil, err
	}
	if len(p.Payloads) == 0 || len(p.Payloads) > maxPayloadsPerCall {
		return nil, apierr.Invalid("parameters.payloads must list between 1 and %d payloads", maxPayloadsPerCall)
	}
	parsed := make([]*evm.RawPayload, len(p.Payloads))
	for i, pl := range p.Payloads {
		rp, err := parsePayload(fmt.Sprintf("parameters.payloads[%d]", i), pl, p.Encoding, p.HashFunction)
		if err != nil {
			return nil, err
		}
		parsed[i] = rp
	}
	return parsed, nil
}

// payloads is what a raw-payload signing activity signs: the payloads its check parsed, with the signer resolved.
type payloads struct {
	signer   *signer
	payloads []*evm.RawPayload
}

func prepareSignRawPayload(x *execution, p *api.SignRawPayloadIntentV2, parsed []*evm.RawPayload, d *decisionRequest) (*payloads, error) {
	return x.preparePayloads(p.SignWith, parsed, d)
}

func prepareSignRawPayloads(x *execution, p *api.SignRawPayloadsIntent, parsed []*evm.RawPayload, d *decisionRequest) (*payloads, error) {
	return x.preparePayloads(p.SignWith, parsed, d)
}

// preparePayloads resolves the signer of raw payloads and gives the policy engine what it reads about each of them:
// the signer, and eth.eip_712 for typed data or eth.eip_7702_authorization for an authorization. Several payloads are
// decided once each, as a batch's calls are: every one must be allowed.
func (x *execution) preparePayloads(signWith string, parsed []*evm.RawPayload, d *decisionRequest) (*payloads, error) {
	s, err := x.signer(signWith)
	if err != nil {
		return nil, err
	}
	for i, rp := range parsed {
		facts := payloadFacts(rp)
		s.facts(facts)
		if i == 0 {
			d.facts = facts
		} else {
			d.moreFacts = append(d.moreFacts, facts)
		}
		d.moves.Add(rp.Moves())
	}
	d.walletID = s.groupID()
	return &payloads{signer: s, payloads: parsed}, nil
}

// payloadFacts is what the policy engine reads of one raw payload beyond its signer.
func payloadFacts(rp *evm.RawPayload) *policy.Input {
	facts := &policy.Input{}
	if rp.TypedData != nil {
		v := rp.TypedData.View()
		facts.EIP712 = &policy.EIP712{PrimaryType: v.PrimaryType, Message: jsonNumbers(v.Message).(map[string]any),
			Domain: policy.EIP712Domain{Name: v.Domain.Name, Version: v.Domain.Version, ChainID: v.Domain.ChainID, VerifyingContract: v.Domain.VerifyingContract}}
	}
	if a := rp.Authorization; a != nil {
		facts.EIP7702Authorization = &policy.EIP7702Authorization{Address: a.Address, ChainID: a.ChainID, Nonce: new(big.Int).SetUint64(a.Nonce)}
	}
	return facts
}

// jsonNumbers turns the *big.Int numbers of a decoded typed-data message into json.Number, the form policies read.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case *big.Int:
		return json.Number(x.String())
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonNumbers(e)
		}
		return out
	}
	return v
}

func execSignRawPayload(x *execution, _ *api.SignRawPayloadIntentV2, pl *payloads) (*api.SignRawPayloadResult, error) {
	sigs, err := x.signPayloads(pl)
	if err != nil {
		return nil, err
	}
	return &sigs[0], nil
}

func execSignRawPayloads(x *execution, _ *api.SignRawPayloadsIntent, pl *payloads) (*api.SignRawPayloadsResult, error) {
	sigs, err := x.signPayloads(pl)
	if err != nil {
		return nil, err
	}
	return &api.SignRawPayloadsResult{Signatures: sigs}, nil
}

// signPayloads signs the parsed payloads with their signer's key.
func (x *execution) signPayloads(pl *payloads) ([]api.SignRawPayloadResult, error) {
	s := pl.signer
	inputs := make([][]byte, len(pl.payloads))
	var err error
	for i, rp := range pl.payloads {
		if inputs[i], err = rp.SigningInput(s.curve); err != nil {
			return nil, apierr.Invalid("parameters: %s", err.Error())
		}
	}
	out := make([]api.SignRawPayloadResult, 0, len(pl.payloads))
	err = x.sign(s, func(key []byte) error {
		for _, in := range inputs {
			var sig keys.Signature
			var err error
			if s.schnorr == ecdsaScheme {
				sig, err = keys.Sign(s.curve, key, in)
			} else {
				sig, err = keys.SignSchnorr(key, in, s.schnorr == taprootScheme)
			}
			if err != nil {
				return err
			}
			r, sv, v := sig.Hex()
			out = append(out, api.SignRawPayloadResult{R: r, S: sv, V: v})
		}
		return nil
	})
	return out, err
}

func hexBytes(h string) ([]byte, error) {
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, errors.New("stored public key is not hex")
	}
	return b, nil
}
