package keys

import (
	"crypto/sha256"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/txscript"
)

// BitcoinScript is the kind of output script a Bitcoin address format pays to.
type BitcoinScript string

// The output scripts of the Bitcoin address formats. Sigil's choice of script for the two script-hash formats, which
// the public API does not spell out: P2SH is P2SH-P2WPKH (BIP-49, as the reference's SDK example derives it), and P2WSH
// pays to the witness script `<compressed key> OP_CHECKSIG` (the descriptor wsh(pk(KEY))).
const (
	ScriptP2PKH  BitcoinScript = "P2PKH"
	ScriptP2SH   BitcoinScript = "P2SH"
	ScriptP2WPKH BitcoinScript = "P2WPKH"
	ScriptP2WSH  BitcoinScript = "P2WSH"
	ScriptP2TR   BitcoinScript = "P2TR"
)

type bitcoinNetwork struct {
	name   string // as in the format's name
	coin   int    // BIP-44 coin type of the default paths
	params *chaincfg.Params
}

var bitcoinNetworks = []bitcoinNetwork{
	{"MAINNET", 0, &chaincfg.MainNetParams},
	{"TESTNET", 1, &chaincfg.TestNet3Params},
	{"SIGNET", 1, &chaincfg.SigNetParams},
	{"REGTEST", 1, &chaincfg.RegressionNetParams},
}

var bitcoinScripts = []struct {
	name  string
	kind  BitcoinScript
	path  string // default path, %d the coin type
	about string
}{
	{"P2PKH", ScriptP2PKH, "m/44'/%d'/0'/0/0", "P2PKH (base58check of HASH160 of the compressed key)"},
	{"P2SH", ScriptP2SH, "m/44'/%d'/0'/0/0", "P2SH-P2WPKH (BIP-49 nested segwit)"},
	{"P2WPKH", ScriptP2WPKH, "m/84'/%d'/0'/0/0", "P2WPKH (BIP-84 native segwit v0)"},
	{"P2WSH", ScriptP2WSH, "m/48'/%d'/0'/2'/0/0", "P2WSH of the witness script `<key> OP_CHECKSIG`"},
	{"P2TR", ScriptP2TR, "m/86'/%d'/0'/0/0", "P2TR key path (BIP-86 tweak, no script tree)"},
}

// BitcoinFormat is what a Bitcoin address format says: the network and the script.
type BitcoinFormat struct {
	Network *chaincfg.Params
	Script  BitcoinScript
}

// bitcoinFormats are the ADDRESS_FORMAT_BITCOIN_* formats, each network's with each script (filled in with formats).
var bitcoinFormats = map[AddressFormat]BitcoinFormat{}

// ParseBitcoinFormat reads an ADDRESS_FORMAT_BITCOIN_* format; ok is false for any other format. Every signing
// request asks it of its key's format, so it looks the format up rather than spelling out every name to compare.
func ParseBitcoinFormat(f AddressFormat) (BitcoinFormat, bool) {
	b, ok := bitcoinFormats[f]
	return b, ok
}

// P2WSHScript is the witness script of a P2WSH address format: <compressed key> OP_CHECKSIG.
func P2WSHScript(compressed []byte) []byte {
	s := make([]byte, 0, 35)
	s = append(s, byte(len(compressed)))
	s = append(s, compressed...)
	return append(s, txscript.OP_CHECKSIG)
}

// P2WPKHScript is the output script (and the P2SH-P2WPKH redeem script) paying to a compressed key: OP_0 <HASH160>.
func P2WPKHScript(compressed []byte) []byte {
	return append([]byte{txscript.OP_0, 20}, btcutil.Hash160(compressed)...)
}

// TaprootOutputKey is the BIP-86 output key of a compressed secp256k1 key (tweaked with no script tree), x-only.
func TaprootOutputKey(compressed []byte) ([]byte, error) {
	pk, err := btcec.ParsePubKey(compressed)
	if err != nil {
		return nil, fmt.Errorf("invalid secp256k1 public key: %w", err)
	}
	return schnorr.SerializePubKey(txscript.ComputeTaprootKeyNoScript(pk)), nil
}

// BitcoinAddress is the address of a compressed secp256k1 key in the given network and script.
func BitcoinAddress(f BitcoinFormat, compressed []byte) (btcutil.Address, error) {
	switch f.Script {
	case ScriptP2PKH:
		return btcutil.NewAddressPubKeyHash(btcutil.Hash160(compressed), f.Network)
	case ScriptP2SH:
		return btcutil.NewAddressScriptHash(P2WPKHScript(compressed), f.Network)
	case ScriptP2WPKH:
		return btcutil.NewAddressWitnessPubKeyHash(btcutil.Hash160(compressed), f.Network)
	case ScriptP2WSH:
		h := sha256.Sum256(P2WSHScript(compressed))
		return btcutil.NewAddressWitnessScriptHash(h[:], f.Network)
	case ScriptP2TR:
		k, err := TaprootOutputKey(compressed)
		if err != nil {
			return nil, err
		}
		return btcutil.NewAddressTaproot(k, f.Network)
	}
	return nil, fmt.Errorf("unknown Bitcoin script %q", f.Script)
}

func bitcoinAddress(n bitcoinNetwork, kind BitcoinScript) func(Curve, []byte) (string, error) {
	return func(_ Curve, pub []byte) (string, error) {
		a, err := BitcoinAddress(BitcoinFormat{Network: n.params, Script: kind}, pub)
		if err != nil {
			return "", err
		}
		return a.EncodeAddress(), nil
	}
}

// base58Hash160 is a P2PKH-style address with the given version byte (Dogecoin).
func base58Hash160(version byte) func(Curve, []byte) (string, error) {
	return func(_ Curve, pub []byte) (string, error) {
		return Base58CheckEncode(append([]byte{version}, btcutil.Hash160(pub)...)), nil
	}
}

// bech32Hash160 is a Cosmos SDK account address: bech32 of HASH160 of the compressed key.
func bech32Hash160(hrp string) func(Curve, []byte) (string, error) {
	return func(_ Curve, pub []byte) (string, error) {
		data, err := bech32.ConvertBits(btcutil.Hash160(pub), 8, 5, true)
		if err != nil {
			return "", err
		}
		return bech32.Encode(hrp, data)
	}
}

// sparkAddress is a Spark identity address: bech32m of the canonical protobuf SparkAddress{identity_public_key = 1},
// that is 0x0a, the length 33, and the compressed key.
func sparkAddress(hrp string) func(Curve, []byte) (string, error) {
	return func(_ Curve, pub []byte) (string, error) {
		payload := append([]byte{0x0a, byte(len(pub))}, pub...)
		data, err := bech32.ConvertBits(payload, 8, 5, true)
		if err != nil {
			return "", err
		}
		return bech32.EncodeM(hrp, data)
	}
}
