package coordinator

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/store"
)

// Smart contract interfaces: an ABI (EVM) or IDL (Solana) uploaded for an address, so that policies can read the
// function a transaction to that address calls and its arguments (eth.tx.function_name, function_signature,
// contract_call_args). The body, up to 400 KB, is stored beside the organization; the document lists each interface
// by id and address. Interfaces are never changed, only created and deleted, so a parsed ABI is cached by id.

const (
	resSmartContractInterface = "SMART_CONTRACT_INTERFACE"
	maxInterfaceBytes         = 400 << 10
	maxInterfacesPerOrg       = 100
	maxNotesLen               = 4096
)

// The activity types of this file.
var (
	createSmartContractInterface = activity(api.CreateSmartContractInterface, on(resSmartContractInterface, actCreate),
		validateCreateInterface, execCreateInterface)
	deleteSmartContractInterface = activity(api.DeleteSmartContractInterface, on(resSmartContractInterface, actDelete),
		validateDeleteInterface, execDeleteInterface)
)

// The queries of this file.
var (
	getSmartContractInterface  = query(api.GetSmartContractInterface, queryGetInterface)
	getSmartContractInterfaces = query(api.GetSmartContractInterfaces, queryGetInterfaces)
)

// ContractInterface is an uploaded interface as the organization document lists it.
type ContractInterface struct {
	ID        string    `json:"id"`
	Address   string    `json:"address"` // as given; found again by addressKey
	Type      string    `json:"type"`
	Label     string    `json:"label"`
	Notes     string    `json:"notes,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

func validateCreateInterface(p *api.CreateSmartContractInterfaceIntent) error {
	if err := checkName("parameters.label", p.Label); err != nil {
		return err
	}
	if len(p.Notes) > maxNotesLen {
		return apierr.Invalid("parameters.notes is longer than %d bytes", maxNotesLen)
	}
	if len(p.SmartContractInterface) > maxInterfaceBytes {
		return apierr.Invalid("parameters.smartContractInterface is %d bytes; an interface is at most %d bytes", len(p.SmartContractInterface), maxInterfaceBytes)
	}
	switch p.Type {
	case api.InterfaceTypeEthereum:
		if !common.IsHexAddress(p.SmartContractAddress) || !strings.HasPrefix(p.SmartContractAddress, "0x") {
			return apierr.Invalid("parameters.smartContractAddress: %q is not a 0x-prefixed Ethereum address", p.SmartContractAddress)
		}
		if _, err := evm.ParseABI(p.SmartContractInterface); err != nil {
			return apierr.Invalid("parameters.smartContractInterface: %s", err.Error())
		}
	case api.InterfaceTypeSolana:
		if b, err := keys.Base58Decode(p.SmartContractAddress); err != nil || len(b) != 32 {
			return apierr.Invalid("parameters.smartContractAddress: %q is not a Solana program id (base58, 32 bytes)", p.SmartContractAddress)
		}
		if _, err := solana.ParseIDL([]byte(p.SmartContractInterface)); err != nil {
			return apierr.Invalid("parameters.smartContractInterface: %s", err.Error())
		}
	default:
		return apierr.Invalid("parameters.type: %q is not SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or SMART_CONTRACT_INTERFACE_TYPE_SOLANA", p.Type)
	}
	return nil
}

func execCreateInterface(x *execution, p *api.CreateSmartContractInterfaceIntent) (*api.CreateSmartContractInterfaceResult, error) {
	if len(x.org.Interfaces) >= maxInterfacesPerOrg {
		return nil, apierr.New(apierr.ResourceExhausted, "REQUEST_INVALID", "an organization holds at most %d smart contract interfaces", maxInterfacesPerOrg)
	}
	if old := x.org.interfaceFor(p.SmartContractAddress, p.Type); old != nil {
		return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "smart contract interface %s already describes %s; delete it to upload another", old.ID, p.SmartContractAddress)
	}
	ci := &ContractInterface{ID: newID(), Address: p.SmartContractAddress, Type: p.Type, Label: p.Label, Notes: p.Notes, CreatedAt: x.now}
	if err := x.tx.PutContractInterface(x.ctx, store.ContractInterface{ID: ci.ID, OrgID: x.org.ID, Body: p.SmartContractInterface,
		CreatedAt: x.now.UnixNano()}); err != nil {
		return nil, err
	}
	x.org.Interfaces = append(x.org.Interfaces, ci)
	return &api.CreateSmartContractInterfaceResult{SmartContractInterfaceID: ci.ID}, nil
}

func validateDeleteInterface(p *api.DeleteSmartContractInterfaceIntent) error {
	return checkID("parameters.smartContractInterfaceId", p.SmartContractInterfaceID)
}

func execDeleteInterface(x *execution, p *api.DeleteSmartContractInterfaceIntent) (*api.DeleteSmartContractInterfaceResult, error) {
	i := x.org.interfaceIndex(p.SmartContractInterfaceID)
	if i < 0 {
		return nil, apierr.NotFoundf("no smart contract interface %s in organization %s", p.SmartContractInterfaceID, x.org.ID)
	}
	if err := x.tx.DeleteContractInterface(x.ctx, p.SmartContractInterfaceID); err != nil {
		return nil, err
	}
	x.org.Interfaces = append(x.org.Interfaces[:i], x.org.Interfaces[i+1:]...)
	return &api.DeleteSmartContractInterfaceResult{SmartContractInterfaceID: p.SmartContractInterfaceID}, nil
}

func (o *Org) interfaceIndex(id string) int {
	for i, ci := range o.Interfaces {
		if ci.ID == id {
			return i
		}
	}
	return -1
}

// interfaceFor is the interface of a type uploaded for an address; nil when there is none.
func (o *Org) interfaceFor(address, typ string) *ContractInterface {
	key := addressKey(address)
	for _, ci := range o.Interfaces {
		if ci.Type == typ && addressKey(ci.Address) == key {
			return ci
		}
	}
	return nil
}

func (r *reader) renderInterface(ci *ContractInterface) (api.SmartContractInterface, error) {
	body, err := r.c.store.GetContractInterface(r.ctx, ci.ID)
	if err != nil {
		return api.SmartContractInterface{}, err
	}
	return api.SmartContractInterface{OrganizationID: r.org.ID, SmartContractInterfaceID: ci.ID, SmartContractAddress: ci.Address,
		SmartContractInterface: body.Body, Type: ci.Type, Label: ci.Label, Notes: ci.Notes,
		CreatedAt: api.NewTimestamp(ci.CreatedAt), UpdatedAt: api.NewTimestamp(ci.CreatedAt)}, nil
}

func queryGetInterface(r *reader, q *api.GetSmartContractInterfaceRequest) (*api.GetSmartContractInterfaceResponse, error) {
	if err := checkID("smartContractInterfaceId", q.SmartContractInterfaceID); err != nil {
		return nil, err
	}
	i := r.org.interfaceIndex(q.SmartContractInterfaceID)
	if i < 0 {
		return nil, apierr.NotFoundf("no smart contract interface %s in organization %s", q.SmartContractInterfaceID, r.org.ID)
	}
	ci, err := r.renderInterface(r.org.Interfaces[i])
	if err != nil {
		return nil, err
	}
	return &api.GetSmartContractInterfaceResponse{SmartContractInterface: ci}, nil
}

func queryGetInterfaces(r *reader, _ *api.OrganizationRequest) (*api.GetSmartContractInterfacesResponse, error) {
	out := &api.GetSmartContractInterfacesResponse{SmartContractInterfaces: []api.SmartContractInterface{}}
	for _, ci := range r.org.Interfaces {
		rendered, err := r.renderInterface(ci)
		if err != nil {
			return nil, err
		}
		out.SmartContractInterfaces = append(out.SmartContractInterfaces, rendered)
	}
	return out, nil
}

// contractCall decodes a transaction's calldata with the ABI uploaded for its destination: nil when there is none,
// or when the calldata does not match it (policies reading the call's fields then find them absent).
func (c *Coordinator) contractCall(ctx context.Context, org *Org, to string, data []byte) (*policy.ContractCall, error) {
	if to == "" {
		return nil, nil
	}
	ci := org.interfaceFor(to, api.InterfaceTypeEthereum)
	if ci == nil {
		return nil, nil
	}
	pi, err := c.parsedInterface(ctx, ci)
	if err != nil {
		return nil, err
	}
	call, err := evm.DecodeCall(pi.abi, data)
	if err != nil {
		return nil, nil
	}
	return &policy.ContractCall{FunctionName: call.FunctionName, FunctionSignature: call.FunctionSignature, Args: call.Args}, nil
}

// decodeInstructions fills parsed_instruction_data of each instruction whose program has an uploaded IDL and whose
// data it decodes; the others stay without it.
func (c *Coordinator) decodeInstructions(ctx context.Context, org *Org, tx *solana.Transaction, facts *policy.SolanaTx) error {
	for i, in := range tx.Parsed.Instructions {
		ci := org.interfaceFor(in.ProgramKey, api.InterfaceTypeSolana)
		if ci == nil {
			continue
		}
		pi, err := c.parsedInterface(ctx, ci)
		if err != nil {
			return err
		}
		call, err := pi.idl.Decode(tx.Message.Instructions[i].Data, in.Addresses)
		if err != nil {
			continue
		}
		named := make(map[string]any, len(call.NamedAccounts))
		for k, v := range call.NamedAccounts {
			named[k] = v
		}
		facts.Instructions[i].Parsed = &policy.SolanaParsedInstruction{InstructionName: call.InstructionName,
			Discriminator: hex.EncodeToString(call.Discriminator), NamedAccounts: named, ProgramCallArgs: call.Args}
	}
	return nil
}

// parsedInterface is an uploaded interface ready to decode with: an ABI or an IDL.
type parsedInterface struct {
	abi *abi.ABI
	idl *solana.IDL
}

// parsedInterface reads and parses an interface once; interfaces never change.
func (c *Coordinator) parsedInterface(ctx context.Context, ci *ContractInterface) (*parsedInterface, error) {
	if pi, ok := c.interfaces.get(ci.ID); ok {
		return pi, nil
	}
	body, err := c.store.GetContractInterface(ctx, ci.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("smart contract interface %s was deleted", ci.ID)
	}
	if err != nil {
		return nil, err
	}
	pi := &parsedInterface{}
	if ci.Type == api.InterfaceTypeSolana {
		pi.idl, err = solana.ParseIDL([]byte(body.Body))
	} else {
		pi.abi, err = evm.ParseABI(body.Body)
	}
	if err != nil {
		// Stored before the limits ParseABI now applies: refused as an upload of it would be, rather than decoded.
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
			"smart contract interface %s (%s) can no longer be read: %v; delete it and upload a valid one", ci.ID, ci.Address, err)
	}
	c.interfaces.put(ci.ID, pi, nil)
	return pi, nil
}
