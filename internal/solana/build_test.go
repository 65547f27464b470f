package solana

import (
	"errors"
	"testing"
)

// A fee payer added to a transaction signs and pays first; the instructions name the same accounts as before, never
// the payer; a payer the transaction names already is refused.
func TestWithFeePayer(t *testing.T) {
	alice, bob, sponsor, blockhash := Key{1}, Key{2}, Key{3}, Key{9}
	tx, err := NewLegacyTransaction(alice, blockhash, SystemTransfer(alice, bob, 5))
	if err != nil {
		t.Fatal(err)
	}
	paid, err := tx.WithFeePayer(sponsor)
	if err != nil {
		t.Fatal(err)
	}
	m := &paid.Message
	if len(paid.Signatures) != 2 || m.AccountKeys[0] != sponsor || m.Header.NumRequiredSignatures != 2 || !m.IsWritable(0) || m.RecentBlockhash != blockhash {
		t.Fatalf("message %+v", m)
	}
	if got := paid.Parsed.Transfers; len(got) != 1 || got[0].From != alice.String() || got[0].To != bob.String() || got[0].Amount != 5 {
		t.Errorf("transfers %+v", got)
	}
	for _, in := range m.Instructions {
		for _, a := range in.Accounts {
			if a == 0 {
				t.Errorf("an instruction names the fee payer: %+v", in)
			}
		}
	}
	if _, err := tx.WithFeePayer(bob); !errors.Is(err, ErrInvalid) {
		t.Errorf("a payer the transaction names already: %v", err)
	}
	rehashed, err := paid.WithBlockhash(Key{7})
	if err != nil || rehashed.Message.RecentBlockhash != (Key{7}) || rehashed.Message.AccountKeys[0] != sponsor {
		t.Errorf("blockhash replaced: %+v %v", rehashed, err)
	}
}
