package coordinator

import (
	"net/http"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// listActivityClients reads back the client each activity was submitted through (api.ClientHeader).
var listActivityClients = query(api.ListActivityClients, queryListActivityClients)

// maxActivityClients is how many activities one list_activity_clients asks about: a page of list_activities.
const maxActivityClients = 100

func queryListActivityClients(r *reader, q *api.ListActivityClientsRequest) (*api.ListActivityClientsResponse, error) {
	if len(q.ActivityIDs) == 0 || len(q.ActivityIDs) > maxActivityClients {
		return nil, apierr.Invalid("activityIds: give 1 to %d activity ids, got %d", maxActivityClients, len(q.ActivityIDs))
	}
	out := &api.ListActivityClientsResponse{ActivityClients: []api.ActivityClient{}}
	for _, id := range q.ActivityIDs {
		rec, err := r.activity(id)
		if err != nil {
			return nil, err
		}
		if rec.Client != "" {
			out.ActivityClients = append(out.ActivityClients, api.ActivityClient{ActivityID: rec.ID, Client: rec.Client})
		}
	}
	return out, nil
}

// requestClient is the client a request names in its X-Sigil-Client header, when it is one the coordinator records:
// short and of plain characters, so that no dashboard or log shows anything else a caller wrote there.
func requestClient(h http.Header) string {
	v := h.Get(api.ClientHeader)
	if v == "" || len(v) > api.ClientMaxLength {
		return ""
	}
	for _, c := range []byte(v) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == '-', c == '/', c == ':', c == '@':
		default:
			return ""
		}
	}
	return v
}
