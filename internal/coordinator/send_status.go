package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// The queries of sends, and their status updates for webhooks.
var (
	getSendTransactionStatus = query(api.GetSendTransactionStatus, queryGetSendTransactionStatus)
	getNonces                = query(api.GetNonces, queryGetNonces)
)

// queryGetSendTransactionStatus reads a send of the organization: by the id ETH_SEND_TRANSACTION gave, or by the
// transaction hash ETH_SEND_RAW_TRANSACTION gave.
func queryGetSendTransactionStatus(r *reader, q *api.GetSendTransactionStatusRequest) (*api.GetSendTransactionStatusResponse, error) {
	var s store.Send
	var err error
	if strings.HasPrefix(q.SendTransactionStatusID, "0x") {
		s, err = r.c.store.SendByHash(r.ctx, r.org.ID, strings.ToLower(q.SendTransactionStatusID))
	} else {
		if err := checkID("sendTransactionStatusId", q.SendTransactionStatusID); err != nil {
			return nil, err
		}
		s, err = r.c.store.SendByID(r.ctx, r.org.ID, q.SendTransactionStatusID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("send transaction status %s not found in organization %s", q.SendTransactionStatusID, r.org.ID)
	}
	if err != nil {
		return nil, err
	}
	return send.Status(s), nil
}

// queryGetNonces is the next nonce of an address of the organization: the larger of the chain's pending count and the
// coordinator's own next one (which is ahead while its sends wait to be broadcast).
func queryGetNonces(r *reader, q *api.GetNoncesRequest) (*api.GetNoncesResponse, error) {
	nw, err := r.c.network(q.Caip2)
	if err != nil {
		return nil, err
	}
	if nw.Solana() {
		return nil, apierr.Invalid("caip2: %s is a Solana cluster, whose accounts have no nonce", nw.CAIP2)
	}
	s, err := r.signer(q.Address)
	if err != nil {
		return nil, apierr.Invalid("address: no wallet account or private key %s in this organization", q.Address)
	}
	from, err := s.ethereumAddress()
	if err != nil {
		return nil, err
	}
	out := &api.GetNoncesResponse{}
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, nw.RPCURL)
	if err != nil {
		return nil, apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: %s", nw.CAIP2, err.Error())
	}
	defer cl.Close()
	if q.GasStationNonce != nil && *q.GasStationNonce {
		slot, err := cl.StorageAt(ctx, common.HexToAddress(from), send.NonceSlot, nil)
		if err != nil {
			return nil, chainUnavailable(nw.CAIP2, err)
		}
		out.GasStationNonce = new(big.Int).SetBytes(slot).String()
	}
	if q.Nonce != nil && !*q.Nonce {
		return out, nil
	}
	chain, err := cl.PendingNonceAt(ctx, common.HexToAddress(from))
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	ours, _, err := r.c.store.NextNonce(ctx, nw.CAIP2, strings.ToLower(from))
	if err != nil {
		return nil, err
	}
	out.Nonce = strconv.FormatUint(max(chain, ours), 10)
	return out, nil
}

// sendEvent is the body of a SEND_TRANSACTION_STATUS_UPDATES delivery: the send's status as
// get_send_transaction_status gives it, with what names the send.
type sendEvent struct {
	Type                    string `json:"type"`
	OrganizationID          string `json:"organizationId"`
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
	ActivityID              string `json:"activityId"`
	Network                 string `json:"network"`
	From                    string `json:"from"`
	*api.GetSendTransactionStatusResponse
}

// sendStatusOrder numbers a send's statuses in the order it passes through them.
func sendStatusOrder(status string) int64 {
	switch status {
	case store.SendInitialized:
		return 1
	case store.SendBroadcasting:
		return 2
	}
	return 3
}

// enqueueSendUpdate writes a send's new status into the outbox for every endpoint of its organization (or the
// parent's) subscribed to SEND_TRANSACTION_STATUS_UPDATES whose networks and addresses filters hold it, in the
// transaction that moves the send. The event id is the send and its status; the subject is the send, so its updates
// arrive in order.
func (c *Coordinator) enqueueSendUpdate(ctx context.Context, tx *store.Tx, s store.Send) error {
	org, err := c.loadOrg(ctx, s.OrgID)
	if errors.Is(err, errOrgNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	endpoints, err := c.listeners(ctx, org)
	if err != nil || len(endpoints) == 0 {
		return err
	}
	var body []byte
	var ds []store.WebhookDelivery
	now := c.now().UnixNano()
	for _, e := range endpoints {
		if !e.wantsSend(s) {
			continue
		}
		if body == nil {
			ev := sendEvent{Type: api.WebhookSendTransactionUpdates, OrganizationID: s.OrgID, SendTransactionStatusID: s.ID,
				ActivityID: s.ActivityID, Network: s.Network, From: s.From, GetSendTransactionStatusResponse: send.Status(s)}
			if body, err = json.Marshal(ev); err != nil {
				return err
			}
		}
		ds = append(ds, store.WebhookDelivery{ID: store.NewDeliveryID(), EventID: s.ID + ":" + s.Status, EndpointID: e.ID, OrgID: s.OrgID,
			Tenant: org.billingID(), URL: e.URL,
			EventType: api.WebhookSendTransactionUpdates, Subject: "send:" + s.ID, Sequence: sendStatusOrder(s.Status), Body: body, CreatedAt: now})
	}
	return tx.EnqueueWebhookDeliveries(ctx, ds)
}

// wantsSend reports whether the endpoint receives a send's status updates.
func (e *WebhookEndpoint) wantsSend(s store.Send) bool {
	if !e.Active {
		return false
	}
	for _, sub := range e.Subscriptions {
		if sub.Active && sub.EventType == api.WebhookSendTransactionUpdates && sub.Filters.matchesBalance(s.Network, s.From) &&
			inFilter(sub.Filters.OrganizationIDs, s.OrgID) {
			return true
		}
	}
	return false
}
