package registry

import (
	"context"
	"errors"

	"github.com/charter-dev/charter/registry/dek"
)

// errNoKeys is returned by DEK registry calls on a store whose
// transactions do not implement dek.KeyTx.
var errNoKeys = errors.New("this store keeps no DEK registry (its Tx does not implement dek.KeyTx)")

// Keys returns the DEK registry (/dek-registry/v1) over s's store, on s's
// clock; its writes are audited under the request's actor, in their
// transaction.
func (s *Service) Keys() *dek.Service { return dek.New(keyStore{s}, s.now) }

// keyStore adapts the Service's store to dek.Store.
type keyStore struct{ s *Service }

func keyTx(tx Tx) (dek.KeyTx, error) {
	k, ok := tx.(dek.KeyTx)
	if !ok {
		return nil, errNoKeys
	}
	return k, nil
}

// View runs fn in a read transaction.
func (k keyStore) View(ctx context.Context, fn func(dek.KeyTx) error) error {
	return k.s.view(ctx, "read keys", func(tx Tx) error {
		kt, err := keyTx(tx)
		if err != nil {
			return err
		}
		return fn(kt)
	})
}

// Update runs fn in a write transaction, with an Audit appending to the
// governance audit log (nothing on a store without one).
func (k keyStore) Update(ctx context.Context, fn func(dek.KeyTx, dek.Audit) error) error {
	return k.s.update(ctx, "write keys", func(tx Tx) error {
		kt, err := keyTx(tx)
		if err != nil {
			return err
		}
		return fn(kt, func(action, subject, target string, before, after any) error {
			return k.s.auditTx(ctx, tx, action, subject, target, before, after)
		})
	})
}
