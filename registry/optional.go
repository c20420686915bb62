package registry

import "context"

// SchemaDeleter is an optional capability of a Tx, found by type
// assertion. When the Tx of a store has it, the Service removes a schema
// whose last subject version was permanently deleted, so that its ID and
// content are forgotten, as Confluent does ("a hard delete removes all
// metadata, including schema IDs": docs.confluent.io,
// schema-registry/schema-deletion-guidelines). Without it the Service
// still answers 40403 for such IDs, but keeps the row, so the same
// content registered again gets its old ID back.
type SchemaDeleter interface {
	// DeleteSchema removes schema id and its reference rows, or returns
	// ErrNotFound. IDs that CreateSchema allocates afterwards must still
	// be greater than every ID ever stored, deleted ones included.
	DeleteSchema(ctx context.Context, id int64) error
}
