package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
)

// readActivityOutcome reads an activity's answer and fails unless the activity completed. It decodes only the
// activity's id and status, and stops reading JSON once it has them: the load generator shares the machine with the
// server, and fully decoding a signing activity's 4 KB answer costs about 27 µs of CPU (json.Unmarshal), a tenth of
// the server's own CPU per request and several times what the peer's short answer costs the same generator. The
// answer is still read to its end, so that the connection is kept alive.
func readActivityOutcome(res *http.Response) error {
	if res.StatusCode != http.StatusOK {
		return client.ReadResponse(res, nil)
	}
	defer res.Body.Close()
	id, status, err := activityStatus(json.NewDecoder(res.Body))
	if _, drainErr := io.Copy(io.Discard, res.Body); err == nil {
		err = drainErr
	}
	if err != nil {
		return fmt.Errorf("activity answer: %w", err)
	}
	if status != api.StatusCompleted {
		return fmt.Errorf("activity %s: %s", id, status)
	}
	return nil
}

// activityStatus walks {"activity": {..., "id": ..., "status": ...}} far enough to return its id and status.
func activityStatus(d *json.Decoder) (id, status string, err error) {
	if err := openObject(d); err != nil {
		return "", "", err
	}
	for d.More() {
		name, err := d.Token()
		if err != nil {
			return "", "", err
		}
		if name != "activity" {
			if err := skipValue(d); err != nil {
				return "", "", err
			}
			continue
		}
		if err := openObject(d); err != nil {
			return "", "", err
		}
		for d.More() && (id == "" || status == "") {
			field, err := d.Token()
			if err != nil {
				return "", "", err
			}
			switch field {
			case "id":
				err = d.Decode(&id)
			case "status":
				err = d.Decode(&status)
			default:
				err = skipValue(d)
			}
			if err != nil {
				return "", "", err
			}
		}
		if status == "" {
			return "", "", errors.New("the activity has no status")
		}
		return id, status, nil
	}
	return "", "", errors.New("no activity in the answer")
}

func openObject(d *json.Decoder) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return fmt.Errorf("expected an object, found %v", t)
	}
	return nil
}

func skipValue(d *json.Decoder) error {
	var skip json.RawMessage
	return d.Decode(&skip)
}
