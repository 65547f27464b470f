package keys

import (
	"strings"
	"testing"
)

// The public keys of the vectors: the secp256k1 generator (private key 1), another secp256k1 key (private key 2's
// point, 02c6047f...), and two Ed25519 keys of RFC 8032 (tests 1 and 2).
const (
	vecG   = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	vecK2  = "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	vecEd1 = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	vecEd2 = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
)

// TestAddressVectors checks every format against published test vectors where a standard publishes them (BIP-173 for
// P2WPKH and P2WSH, XRPL's genesis account) and otherwise against each chain's reference library, computed with
// bitcoinjs-lib 6.1 (P2PKH, P2SH-P2WPKH, P2TR, Dogecoin), @cosmjs/amino 0.32 (Cosmos, Sei), ripple-keypairs 2.0
// (XRP), tronweb 6.0 (Tron), @stellar/stellar-base 13 (XLM), @mysten/sui 1.x (Sui), @aptos-labs/ts-sdk 1.x
// (Aptos), @ton/ton 15 (TON wallets) and @scure/base's bech32m (Spark).
func TestAddressVectors(t *testing.T) {
	tests := []struct {
		format AddressFormat
		pub    string
		want   string
	}{
		// BIP-173's P2WPKH and P2WSH examples are the generator key's (P2WSH of <key> OP_CHECKSIG).
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", vecG, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"},
		{"ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH", vecG, "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH", vecG, "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3"},
		{"ADDRESS_FORMAT_BITCOIN_TESTNET_P2WSH", vecG, "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH", vecG, "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH", vecG, "3JvL6Ymt8MVWiCNHC7oWU6nLeHNJKLZGLN"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", vecG, "bc1pmfr3p9j00pfxjh0zmgp99y8zftmd3s5pmedqhyptwy6lm87hf5sspknck9"},
		{"ADDRESS_FORMAT_BITCOIN_SIGNET_P2PKH", vecG, "mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r"},
		{"ADDRESS_FORMAT_BITCOIN_SIGNET_P2TR", vecG, "tb1pmfr3p9j00pfxjh0zmgp99y8zftmd3s5pmedqhyptwy6lm87hf5ssk79hv2"},
		{"ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH", vecG, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"},
		{"ADDRESS_FORMAT_BITCOIN_REGTEST_P2WSH", vecG, "bcrt1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qzf4jry"},
		{"ADDRESS_FORMAT_BITCOIN_REGTEST_P2TR", vecG, "bcrt1pmfr3p9j00pfxjh0zmgp99y8zftmd3s5pmedqhyptwy6lm87hf5ssm803es"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH", vecK2, "1F3sAm6ZtwLAUnj7d38pGFxtP3RVEvtsbV"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH", vecK2, "3DnW8JGpPViEZdpqat8qky1zc26EKbXnmM"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", vecK2, "bc1qngw83fg8dz0k749cg7k3emc7v98wy0c74dlrkd"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH", vecK2, "bc1q9cn3l23ryhqen5jayts74kvzu3dkfm457v088k7lgx75khlvy0aqee8937"},
		{"ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", vecK2, "bc1pw74tdcrxlzn5r8z6ku2vztr86fgq0m245s72mjktf4afwzsf8ugs0gs8zu"},
		{"ADDRESS_FORMAT_BITCOIN_TESTNET_P2PKH", vecK2, "muZpTpBYhxmRFuCjLc7C6BBDF32C8XVJUi"},
		{"ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH", vecK2, "2N5LiC3CqzxDamRTPG1kiNv1FpNJQ7x28sb"},
		{"ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR", vecK2, "tb1pw74tdcrxlzn5r8z6ku2vztr86fgq0m245s72mjktf4afwzsf8ugscqxgcn"},
		{"ADDRESS_FORMAT_BITCOIN_SIGNET_P2SH", vecK2, "2N5LiC3CqzxDamRTPG1kiNv1FpNJQ7x28sb"},
		{"ADDRESS_FORMAT_BITCOIN_SIGNET_P2WPKH", vecK2, "tb1qngw83fg8dz0k749cg7k3emc7v98wy0c7ltysd7"},
		{"ADDRESS_FORMAT_BITCOIN_SIGNET_P2WSH", vecK2, "tb1q9cn3l23ryhqen5jayts74kvzu3dkfm457v088k7lgx75khlvy0aqw332t3"},
		{"ADDRESS_FORMAT_BITCOIN_REGTEST_P2PKH", vecK2, "muZpTpBYhxmRFuCjLc7C6BBDF32C8XVJUi"},
		{"ADDRESS_FORMAT_BITCOIN_REGTEST_P2SH", vecK2, "2N5LiC3CqzxDamRTPG1kiNv1FpNJQ7x28sb"},
		{"ADDRESS_FORMAT_BITCOIN_TESTNET_P2WSH", vecK2, "tb1q9cn3l23ryhqen5jayts74kvzu3dkfm457v088k7lgx75khlvy0aqw332t3"},
		{AddressFormatDogeMainnet, vecG, "DFpN6QqFfUm3gKNaxN6tNcab1FArL9cZLE"},
		{AddressFormatDogeTestnet, vecG, "nesRpRaAbTDmZHwmzBkLd2AtF7Z9L9z5S2"},
		{AddressFormatDogeMainnet, vecK2, "DKBxi23DCMET1nuiMd8Np28VGB9nbiXyhd"},
		{AddressFormatDogeTestnet, vecK2, "niF2S2n88KhAtmUuPSmq4RinW3Y5b4VUw5"},
		{AddressFormatCosmos, vecG, "cosmos1w508d6qejxtdg4y5r3zarvary0c5xw7k6ah60c"},
		{AddressFormatCosmos, vecK2, "cosmos1ngw83fg8dz0k749cg7k3emc7v98wy0c7rhpgjq"},
		{AddressFormatSei, vecG, "sei1w508d6qejxtdg4y5r3zarvary0c5xw7kh3xvfe"},
		{AddressFormatSei, vecK2, "sei1ngw83fg8dz0k749cg7k3emc7v98wy0c7wms75p"},
		// The XRP Ledger's genesis account (the key of the passphrase "masterpassphrase"), from its documentation.
		{AddressFormatXRP, "0330E7FC9D56BB25D6893BA3F317AE5BCF33B3291BD63DB32654A313222F7FD020", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"},
		{AddressFormatXRP, vecG, "rBgGZ9tc4him9KBzD8fKFiQz3fSZpaSwMH"},
		{AddressFormatXRP, vecK2, "rEs1wmaZtALw78jfds3FGExtPsRVNvt1bV"},
		{AddressFormatTron, vecG, "TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC"},
		{AddressFormatTron, vecK2, "TFxUNfCwhiTSnNntkcXvicSTf4otPXeCXL"},
		{AddressFormatSparkMainnet, vecG, "spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2"},
		{AddressFormatSparkRegtest, vecG, "sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4"},
		{AddressFormatSparkMainnet, vecK2, "spark1pgss8g6tn8ezc7gvfcmt9v7zcddrdkcxyfhyr35jljpt3dt2c8z5p3dagwfnem"},
		{AddressFormatXLM, vecEd1, "GDLVVGABQKYQVN6VJP7NHSLEA45A5YLS6PNKMIZFV4BBU2HXA5IRVHUR"},
		{AddressFormatXLM, vecEd2, "GA6UAF6D5BBYSWUSW4FKOTI3P26JZGBMZ4XMJFUMYDGVL4JK6RTAZGXX"},
		{AddressFormatSui, vecEd1, "0x304af458e90e97c841685b8cbbc59b909f3e2cf150df590ada4c81452c29737d"},
		{AddressFormatSui, vecEd2, "0x9139e6b295e978c97bb2f6247ce95b0a684ea423f57a52fd719a46fd3f5b1865"},
		{AddressFormatAptos, vecEd1, "0x63c5215e87770d17b9f4cd47c777e322f4eb152cfd2054c1080fd9d57c48913b"},
		{AddressFormatAptos, vecEd2, "0xc0b0918edf3a763a3001744584b0d26873ec883e02af5e7cfa88e50240ac1032"},
		{AddressFormatTonV3R2, vecEd1, "UQB3V1d93mD6v4qWoRPnlm0UrYpcHZz2lCD_10u84NHWuSCK"},
		{AddressFormatTonV4R2, vecEd1, "UQDNrJfJFisuFBrURjgosqcO_fh2K5foNWPzUr7PkC6Ipteq"},
		{AddressFormatTonV5R1, vecEd1, "UQCUp64SJJ505dIdcgHDG1oD8JKMLXpQzu5W6lLFdQGtA8kY"},
	}
	for _, tt := range tests {
		t.Run(string(tt.format)+"/"+tt.pub[:8], func(t *testing.T) {
			curve := CurveSecp256k1
			if len(tt.pub) == 64 {
				curve = CurveEd25519
			}
			got, err := Address(curve, tt.format, mustHex(t, strings.ToLower(tt.pub)))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Address = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestBitcoinBIPVectors derives the accounts of BIP-44, BIP-49, BIP-84 and BIP-86's published vectors (the mnemonic
// "abandon ... about", first receive address of account 0) and formats them as the matching address formats.
func TestBitcoinBIPVectors(t *testing.T) {
	seed, err := SeedFromMnemonic([]byte("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"), "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		format AddressFormat
		want   string
	}{
		{"m/44'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH", "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA"},
		{"m/49'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH", "37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf"},
		{"m/49'/1'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH", "2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2"},
		{"m/84'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"},
		{"m/86'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"},
		{"m/86'/0'/0'/0/1", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", "bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh"},
	}
	for _, tt := range tests {
		p, _ := ParsePath(tt.path)
		n, err := DeriveNode(CurveSecp256k1, seed, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Address(CurveSecp256k1, tt.format, n.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.path, tt.format, got, tt.want)
		}
	}
}

// TestEveryFormat checks that the table holds every value of @turnkey/http 6.6.0's v1AddressFormat, each with a
// curve, and that each derives an address from a key of its first curve.
func TestEveryFormat(t *testing.T) {
	wire := []AddressFormat{"ADDRESS_FORMAT_UNCOMPRESSED", "ADDRESS_FORMAT_COMPRESSED", "ADDRESS_FORMAT_ETHEREUM",
		"ADDRESS_FORMAT_SOLANA", "ADDRESS_FORMAT_COSMOS", "ADDRESS_FORMAT_TRON", "ADDRESS_FORMAT_SUI", "ADDRESS_FORMAT_APTOS",
		"ADDRESS_FORMAT_SEI", "ADDRESS_FORMAT_XLM", "ADDRESS_FORMAT_DOGE_MAINNET", "ADDRESS_FORMAT_DOGE_TESTNET",
		"ADDRESS_FORMAT_TON_V3R2", "ADDRESS_FORMAT_TON_V4R2", "ADDRESS_FORMAT_TON_V5R1", "ADDRESS_FORMAT_XRP",
		"ADDRESS_FORMAT_SPARK_MAINNET", "ADDRESS_FORMAT_SPARK_REGTEST"}
	for _, n := range []string{"MAINNET", "TESTNET", "SIGNET", "REGTEST"} {
		for _, s := range []string{"P2PKH", "P2SH", "P2WPKH", "P2WSH", "P2TR"} {
			wire = append(wire, AddressFormat("ADDRESS_FORMAT_BITCOIN_"+n+"_"+s))
		}
	}
	if len(wire) != 38 {
		t.Fatalf("%d wire formats, want 38", len(wire))
	}
	if got := len(AddressFormats()) + len(unsupportedFormats); got != len(wire) {
		t.Errorf("the table has %d formats, the wire enum %d", got, len(wire))
	}
	keys := map[Curve]string{CurveSecp256k1: vecG, CurveEd25519: vecEd1, CurveP256: "036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"}
	for _, f := range wire {
		def, ok := formats[f]
		if !ok {
			t.Errorf("%s is not derived", f)
			continue
		}
		for _, c := range def.curves {
			if _, err := Address(c, f, mustHex(t, keys[c])); err != nil {
				t.Errorf("%s on %s: %v", f, c, err)
			}
		}
		if p := def.defaultPath; p != "" {
			path, err := ParsePath(p)
			if err != nil {
				t.Errorf("%s: default path: %v", f, err)
				continue
			}
			seed := make([]byte, 32)
			if _, err := DeriveNode(def.curves[0], seed, path); err != nil {
				t.Errorf("%s: default path %s does not derive on %s: %v", f, p, def.curves[0], err)
			}
		}
	}
}
