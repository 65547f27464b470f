package store

import (
	"context"
	"fmt"
)

// EmailEvent is one thing the mailer did with a message: its metadata, never its body.
type EmailEvent struct {
	ID          string
	OrgID       string
	MessageID   string
	EventType   string // Send, ...
	FromAddress string
	ToAddress   string // lower case
	AtMs        int64
}

// PutEmailEvent records an email event in the transaction of the activity that sent the message.
func (t *Tx) PutEmailEvent(ctx context.Context, e EmailEvent) error {
	_, err := t.exec(ctx, "INSERT INTO email_events (id, org_id, message_id, event_type, from_address, to_address, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
		e.ID, e.OrgID, e.MessageID, e.EventType, e.FromAddress, e.ToAddress, e.AtMs)
	if err != nil {
		return fmt.Errorf("store: put email event: %w", err)
	}
	return nil
}

// EmailEventPage selects a recipient's events, newest first: of a type (empty: any), before an event id (empty: the
// newest), at most Limit.
type EmailEventPage struct {
	OrgID, ToAddress, EventType, Before string
	Limit                               int
}

// ListEmailEvents lists a recipient's email events, newest first.
func (s *Store) ListEmailEvents(ctx context.Context, p EmailEventPage) ([]EmailEvent, error) {
	q := "SELECT id, org_id, message_id, event_type, from_address, to_address, at_ms FROM email_events WHERE org_id = ? AND to_address = ?"
	args := []any{p.OrgID, p.ToAddress}
	if p.EventType != "" {
		q += " AND event_type = ?"
		args = append(args, p.EventType)
	}
	if p.Before != "" {
		q += " AND (at_ms, id) < (SELECT at_ms, id FROM email_events WHERE org_id = ? AND id = ?)"
		args = append(args, p.OrgID, p.Before)
	}
	q += " ORDER BY at_ms DESC, id DESC LIMIT ?"
	args = append(args, p.Limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list email events: %w", err)
	}
	defer rows.Close()
	var out []EmailEvent
	for rows.Next() {
		var e EmailEvent
		if err := rows.Scan(&e.ID, &e.OrgID, &e.MessageID, &e.EventType, &e.FromAddress, &e.ToAddress, &e.AtMs); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
