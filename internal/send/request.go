package send

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/internal/store"
)

// Call is one call of a send.
type Call struct {
	To    common.Address `json:"to"`
	Value *hexutil.Big   `json:"value"`
	Data  hexutil.Bytes  `json:"data"`
}

// Request is what a send asks for, as the activity allowed it: its calls, and the fields its caller chose (nil: the
// worker fills them).
type Request struct {
	Calls                []Call       `json:"calls"`
	Nonce                *uint64      `json:"nonce,omitempty"`
	GasLimit             *uint64      `json:"gasLimit,omitempty"`
	MaxFeePerGas         *hexutil.Big `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas *hexutil.Big `json:"maxPriorityFeePerGas,omitempty"`
	Deadline             int64        `json:"deadline,omitempty"` // unix seconds; 0 for none
	// Sponsor has the organization's gas sponsor pay: the account signs the calls (EIP-712) and the sponsor submits
	// them through the network's gas station. GasStationNonce is the account's sponsored-batch nonce the caller
	// expects (nil: the account's next).
	Sponsor         bool    `json:"sponsor,omitempty"`
	GasStationNonce *uint64 `json:"gasStationNonce,omitempty"`
	// Undelegate asks for the account's EIP-7702 delegation to be removed (no calls).
	Undelegate bool `json:"undelegate,omitempty"`
	// Fill is a filler: a zero-value transfer of the address to itself that uses this nonce of it, which a send
	// refused for good held, so that the address's later transactions are mined. FillMinFee and FillMinTip are the
	// least fees it is signed with, to replace a transaction stuck in a node's pool at that nonce (nil: the node's).
	Fill       *uint64      `json:"fill,omitempty"`
	FillMinFee *hexutil.Big `json:"fillMinFee,omitempty"`
	FillMinTip *hexutil.Big `json:"fillMinTip,omitempty"`
}

// fillPrefix begins the activity id of a filler send, which no activity recorded.
const fillPrefix = "fill:"

// isFill reports whether a send is a filler.
func isFill(s store.Send) bool { return strings.HasPrefix(s.ActivityID, fillPrefix) }

// Encode is the request as the store keeps it.
func (r *Request) Encode() []byte { return encode(r) }

// encode is a request's JSON, as the store keeps it.
func encode(r any) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // plain data always marshals
	}
	return b
}

func decodeRequest(b []byte) (*Request, error) {
	r := &Request{}
	return r, json.Unmarshal(b, r)
}

func (c Call) value() *big.Int {
	if c.Value == nil {
		return new(big.Int)
	}
	return c.Value.ToInt()
}
