package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
)

// Account sends transactions signed by one private key through any JSON-RPC client. It hands out
// nonces itself, so concurrent senders on the same account do not collide. The dev chain uses it
// for the dev account (deployment, faucet, simulator); it works against any EVM node.
type Account struct {
	client  *ethclient.Client
	key     *ecdsa.PrivateKey
	address common.Address
	chainID *big.Int

	mu        sync.Mutex
	nextNonce uint64
	haveNonce bool
}

// minTip is go-ethereum's default minimum miner tip (miner.DefaultConfig.GasPrice).
var minTip = big.NewInt(params.GWei / 1000)

// Wait asks for a receipt after firstPoll, then backs off to maxPoll: the embedded dev chain seals a block within a
// few milliseconds of a transaction (deploying the fixtures is some eighty transactions in a row, so the first polls
// count), while a node elsewhere is not asked a thousand times a second.
const (
	firstPoll = time.Millisecond
	maxPoll   = 50 * time.Millisecond
)

// NewAccount returns an Account for key on the chain reached through client.
func NewAccount(client *ethclient.Client, key *ecdsa.PrivateKey, chainID *big.Int) *Account {
	return &Account{client: client, key: key, address: crypto.PubkeyToAddress(key.PublicKey), chainID: chainID}
}

// Address is the account's address.
func (a *Account) Address() common.Address { return a.address }

// Transact sends a transaction and waits until it is mined. A transaction that would revert is
// refused before it is sent, with the node's revert reason; one that reverts when mined is an error
// carrying its receipt.
func (a *Account) Transact(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	tx, err := a.Send(ctx, to, value, data)
	if err != nil {
		return nil, err
	}
	return a.Wait(ctx, tx)
}

// Send signs and broadcasts a transaction without waiting for it to be mined.
func (a *Account) Send(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	if value == nil {
		value = new(big.Int)
	}
	gas, err := a.client.EstimateGas(ctx, ethereum.CallMsg{From: a.address, To: to, Value: value, Data: data})
	if err != nil {
		return nil, fmt.Errorf("estimate gas: %w", err)
	}
	tip, err := a.client.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, fmt.Errorf("suggest gas tip: %w", err)
	}
	if tip.Cmp(minTip) < 0 {
		tip = new(big.Int).Set(minTip) // below a go-ethereum miner's default minimum it is never mined
	}
	head, err := a.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("read latest header: %w", err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)

	a.mu.Lock()
	defer a.mu.Unlock()
	// Another sender of the same key (a second dev chain attached to the same node, a script on Anvil's account 0)
	// may have used the nonces this one counted on: a nonce the node finds too low is read again, once.
	for attempt := 0; ; attempt++ {
		if !a.haveNonce {
			nonce, err := a.client.PendingNonceAt(ctx, a.address)
			if err != nil {
				return nil, fmt.Errorf("read nonce of %s: %w", a.address, err)
			}
			a.nextNonce, a.haveNonce = nonce, true
		}
		tx, err := types.SignNewTx(a.key, types.LatestSignerForChainID(a.chainID), &types.DynamicFeeTx{
			ChainID:   a.chainID,
			Nonce:     a.nextNonce,
			GasTipCap: tip,
			GasFeeCap: feeCap,
			Gas:       gas + gas/4, // estimates are exact for the state they ran on; leave room for drift
			To:        to,
			Value:     value,
			Data:      data,
		})
		if err != nil {
			return nil, fmt.Errorf("sign transaction: %w", err)
		}
		if err := a.client.SendTransaction(ctx, tx); err != nil {
			a.haveNonce = false // re-read the nonce from the node next time
			if attempt == 0 && strings.Contains(err.Error(), "nonce too low") {
				continue
			}
			return nil, fmt.Errorf("send transaction: %w", err)
		}
		a.nextNonce++
		return tx, nil
	}
}

// forgetNonce makes the next Send read the nonce from the node: the chain was rewound under the account.
func (a *Account) forgetNonce() {
	a.mu.Lock()
	a.haveNonce = false
	a.mu.Unlock()
}

// ErrReverted is returned (wrapped) by Wait for a mined transaction that failed.
var ErrReverted = errors.New("transaction reverted")

// Wait polls until tx is mined and returns its receipt.
func (a *Account) Wait(ctx context.Context, tx *types.Transaction) (*types.Receipt, error) {
	return waitMined(ctx, a.client, tx.Hash())
}

func waitMined(ctx context.Context, client *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	poll := firstPoll
	for ; ; poll = min(2*poll, maxPoll) {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for transaction %s: %w", hash, ctx.Err())
		case <-timer.C:
		}
		receipt, err := client.TransactionReceipt(ctx, hash)
		if err == nil && !headReached(ctx, client, receipt.BlockNumber) {
			// The receipt is indexed when the block is inserted, a moment before the block
			// becomes the head; reads at "latest" would not see the transaction yet.
			timer.Reset(poll)
			continue
		}
		switch {
		case err == nil && receipt.Status == types.ReceiptStatusSuccessful:
			return receipt, nil
		case err == nil:
			return receipt, fmt.Errorf("%w: %s in block %s", ErrReverted, hash, receipt.BlockNumber)
		case !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress"):
			return nil, fmt.Errorf("read receipt of %s: %w", hash, err)
		}
		timer.Reset(poll)
	}
}

func headReached(ctx context.Context, client *ethclient.Client, number *big.Int) bool {
	head, err := client.HeaderByNumber(ctx, nil)
	return err == nil && head.Number.Cmp(number) >= 0
}
