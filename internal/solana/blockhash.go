package solana

// WithBlockhash is the transaction with its message's recent blockhash replaced, its signature slots emptied (a
// signature over the old message is no signature of the new one), parsed again.
func (t *Transaction) WithBlockhash(h Key) (*Transaction, error) {
	m := &t.Message
	off := 3 + shortVecSize(len(m.AccountKeys)) + KeySize*len(m.AccountKeys)
	if m.Version >= 0 {
		off++ // the version prefix
	}
	raw := append([]byte{}, m.raw...)
	copy(raw[off:off+KeySize], h[:])
	unsigned := Transaction{Signatures: make([][SignatureSize]byte, len(t.Signatures)), Message: Message{raw: raw}}
	return ParseTransaction(unsigned.Serialize())
}

// Signed is the transaction with the signature of slot i set.
func (t *Transaction) Signed(i int, sig [SignatureSize]byte) *Transaction {
	out := *t
	out.Signatures = append([][SignatureSize]byte{}, t.Signatures...)
	out.Signatures[i] = sig
	return &out
}

// shortVecSize is the length of n's compact-u16 encoding.
func shortVecSize(n int) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	}
	return 3
}
