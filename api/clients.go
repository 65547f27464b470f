package api

// ClientHeader is the request header in which a client of the coordinator names itself and what it was doing, so that
// an operator can see where each activity came from: `mcp/actions_enter` is an activity that `sigil mcp` submitted for
// its tool actions_enter. It is Sigil's, not the reference's: other clients send none, and nothing of the wire shapes
// changes. The stamp does not cover it (it covers the body only): it says what the client that held the key claims,
// no more. The coordinator records it with the activity (at most ClientMaxLength characters: letters, digits and
// ".", "_", "-", "/", ":", "@"; anything else records nothing) and list_activity_clients reads it back.
const ClientHeader = "X-Sigil-Client"

// ClientMaxLength is the longest X-Sigil-Client value the coordinator records.
const ClientMaxLength = 100

// ListActivityClientsRequest is the body of list_activity_clients (Sigil's): the activities whose client to read.
type ListActivityClientsRequest struct {
	OrganizationID string   `json:"organizationId"`
	ActivityIDs    []string `json:"activityIds"`
}

// ListActivityClientsResponse names, for each activity asked about that a client named itself for, that client.
// Activities submitted without X-Sigil-Client are left out.
type ListActivityClientsResponse struct {
	ActivityClients []ActivityClient `json:"activityClients"`
}

// ActivityClient is the client an activity was submitted through, as X-Sigil-Client named it.
type ActivityClient struct {
	ActivityID string `json:"activityId"`
	Client     string `json:"client"`
}

// ListActivityClients is the query of the clients activities came through.
var ListActivityClients = query[ListActivityClientsRequest, ListActivityClientsResponse]("list_activity_clients")
