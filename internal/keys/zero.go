package keys

// Zero overwrites b with zeros. Use it on mnemonics, seeds and private keys
// once they are no longer needed; see the package documentation for what Go
// cannot guarantee about wiping.
func Zero(b []byte) {
	clear(b)
}
