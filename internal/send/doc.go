// Package send sends EVM transactions for the coordinator and watches them: the networks it sends on (by CAIP-2 id),
// the worker that simulates, prices, numbers, signs and broadcasts each send the policy engine allowed, and the
// watcher that follows it to a block (or to its failure, with the revert reason decoded). Sends live in the store
// (send_transactions), so that any process over the same database carries on where another stopped, and nonces come
// from the store's allocator (send_nonces), so that concurrent sends from one address never share or skip one.
package send
