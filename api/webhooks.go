package api

// The webhook event types an endpoint subscribes to, as Turnkey names them.
const (
	WebhookActivityUpdates         = "ACTIVITY_UPDATES"
	WebhookBalanceConfirmedUpdates = "BALANCE_CONFIRMED_UPDATES"
	WebhookBalanceFinalizedUpdates = "BALANCE_FINALIZED_UPDATES"
	WebhookSendTransactionUpdates  = "SEND_TRANSACTION_STATUS_UPDATES"
	WebhookJWKSPath                = "/public/v1/discovery/webhooks/jwks"
)

// WebhookSubscriptionParams is one event type an endpoint receives; FiltersJSON narrows it (a JSON object).
type WebhookSubscriptionParams struct {
	EventType   string `json:"eventType"`
	FiltersJSON string `json:"filtersJson,omitempty"`
	IsActive    *bool  `json:"isActive,omitempty"`
}

// WebhookEndpointData is an endpoint as results and queries return it.
type WebhookEndpointData struct {
	EndpointID     string                      `json:"endpointId"`
	OrganizationID string                      `json:"organizationId"`
	URL            string                      `json:"url"`
	Name           string                      `json:"name"`
	IsActive       bool                        `json:"isActive"`
	Subscriptions  []WebhookSubscriptionParams `json:"subscriptions"`
}

// CreateWebhookEndpointIntent is ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT.
type CreateWebhookEndpointIntent struct {
	URL           string                      `json:"url"`
	Name          string                      `json:"name"`
	Subscriptions []WebhookSubscriptionParams `json:"subscriptions,omitempty"`
}

// CreateWebhookEndpointResult is the new endpoint.
type CreateWebhookEndpointResult struct {
	EndpointID      string              `json:"endpointId"`
	WebhookEndpoint WebhookEndpointData `json:"webhookEndpoint"`
}

// UpdateWebhookEndpointIntent is ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: what is given changes.
type UpdateWebhookEndpointIntent struct {
	EndpointID string  `json:"endpointId"`
	URL        *string `json:"url,omitempty"`
	Name       *string `json:"name,omitempty"`
	IsActive   *bool   `json:"isActive,omitempty"`
}

// UpdateWebhookEndpointResult is the endpoint as it now is.
type UpdateWebhookEndpointResult struct {
	EndpointID      string              `json:"endpointId"`
	WebhookEndpoint WebhookEndpointData `json:"webhookEndpoint"`
}

// DeleteWebhookEndpointIntent is ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT.
type DeleteWebhookEndpointIntent struct {
	EndpointID string `json:"endpointId"`
}

// DeleteWebhookEndpointResult names the deleted endpoint.
type DeleteWebhookEndpointResult struct {
	EndpointID string `json:"endpointId"`
}

// ListWebhookEndpointsResponse is the organization's endpoints.
type ListWebhookEndpointsResponse struct {
	WebhookEndpoints []WebhookEndpointData `json:"webhookEndpoints"`
}

// ListWebhookDeliveriesRequest is the body of list_webhook_deliveries, a Sigil query: an endpoint's latest
// deliveries, newest first, optionally of one state (pending, delivered or dead).
type ListWebhookDeliveriesRequest struct {
	OrganizationID string `json:"organizationId"`
	EndpointID     string `json:"endpointId"`
	State          string `json:"state,omitempty"`
	Limit          int    `json:"limit,omitempty"` // default and most 100
}

// The states of a webhook delivery.
const (
	WebhookDeliveryPending   = "WEBHOOK_DELIVERY_STATE_PENDING"
	WebhookDeliveryDelivered = "WEBHOOK_DELIVERY_STATE_DELIVERED"
	WebhookDeliveryDead      = "WEBHOOK_DELIVERY_STATE_DEAD"
)

// WebhookDelivery is one event for one endpoint and what became of it. Times are unix milliseconds as strings;
// nextAttemptMs only while pending, completedMs once delivered or dead.
type WebhookDelivery struct {
	DeliveryID     string `json:"deliveryId"`
	EventID        string `json:"eventId"`
	EventType      string `json:"eventType"`
	OrganizationID string `json:"organizationId"` // the event's organization: the endpoint's, or one of its sub-organizations
	Subject        string `json:"subject"`        // the activity
	State          string `json:"state"`
	Attempts       int    `json:"attempts"`
	LastStatusCode int    `json:"lastStatusCode,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	CreatedMs      string `json:"createdMs"`
	NextAttemptMs  string `json:"nextAttemptMs,omitempty"`
	CompletedMs    string `json:"completedMs,omitempty"`
}

// ListWebhookDeliveriesResponse is an endpoint's deliveries.
type ListWebhookDeliveriesResponse struct {
	Deliveries []WebhookDelivery `json:"deliveries"`
}

// ReplayWebhookDeliveriesIntent is ACTIVITY_TYPE_REPLAY_WEBHOOK_DELIVERIES, a Sigil activity (Turnkey has none like
// it): dead-lettered deliveries of an endpoint are queued again, under the same event id. DeliveryIDs names them;
// left out or empty, every dead delivery of the endpoint is, up to MaxReplayDeliveries at once.
type ReplayWebhookDeliveriesIntent struct {
	EndpointID  string   `json:"endpointId"`
	DeliveryIDs []string `json:"deliveryIds,omitempty"`
}

// MaxReplayDeliveries is the most deliveries one replay queues again.
const MaxReplayDeliveries = 1000

// ReplayWebhookDeliveriesResult names the deliveries queued again.
type ReplayWebhookDeliveriesResult struct {
	EndpointID  string   `json:"endpointId"`
	DeliveryIDs []string `json:"deliveryIds"`
}

// The activity types of this file.
var (
	CreateWebhookEndpoint = activity[CreateWebhookEndpointIntent, CreateWebhookEndpointResult](
		"CREATE_WEBHOOK_ENDPOINT", "create_webhook_endpoint", "createWebhookEndpointIntent", "createWebhookEndpointResult")
	UpdateWebhookEndpoint = activity[UpdateWebhookEndpointIntent, UpdateWebhookEndpointResult](
		"UPDATE_WEBHOOK_ENDPOINT", "update_webhook_endpoint", "updateWebhookEndpointIntent", "updateWebhookEndpointResult")
	DeleteWebhookEndpoint = activity[DeleteWebhookEndpointIntent, DeleteWebhookEndpointResult](
		"DELETE_WEBHOOK_ENDPOINT", "delete_webhook_endpoint", "deleteWebhookEndpointIntent", "deleteWebhookEndpointResult")
	ReplayWebhookDeliveries = activity[ReplayWebhookDeliveriesIntent, ReplayWebhookDeliveriesResult](
		"REPLAY_WEBHOOK_DELIVERIES", "replay_webhook_deliveries", "replayWebhookDeliveriesIntent", "replayWebhookDeliveriesResult")
)

// The queries of this file.
var (
	ListWebhookEndpoints  = query[OrganizationRequest, ListWebhookEndpointsResponse]("list_webhook_endpoints")
	ListWebhookDeliveries = query[ListWebhookDeliveriesRequest, ListWebhookDeliveriesResponse]("list_webhook_deliveries")
)
