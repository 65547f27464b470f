package store

import "context"

// ForgetMigrationForTest removes a migration's record, as if a later release had added it below applied ones.
func ForgetMigrationForTest(ctx context.Context, tx *Tx, version int) error {
	_, err := tx.exec(ctx, "DELETE FROM schema_migrations WHERE version = ?", version)
	return err
}
