package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
)

// maxPayload bounds a notification's payload: PostgreSQL refuses 8000
// bytes and more. A longer list of IDs is sent as "drop everything".
const maxPayload = 7000

// notice is the payload of an invalidation NOTIFY.
type notice struct {
	Source string  `json:"src"`   // Store.instance of the sender
	Epoch  int64   `json:"epoch"` // cache_epoch after the sender's commit
	IDs    []int64 `json:"ids,omitempty"`
	All    bool    `json:"all,omitempty"`
}

// invalidator tracks the last cache epoch applied to this process's
// caches and calls the subscribers, in order, under its lock.
type invalidator struct {
	mu    sync.Mutex
	epoch int64
	subs  []func(registry.Invalidation)
}

// OnInvalidate registers fn to be called with what other processes
// forgot ([registry.Invalidator]). fn runs on the store's listener or
// poller goroutine, or inside an Update before its fn, and must not block
// for long or call the Store.
func (s *Store) OnInvalidate(fn func(registry.Invalidation)) {
	s.inv.mu.Lock()
	s.inv.subs = append(s.inv.subs, fn)
	s.inv.mu.Unlock()
}

func (v *invalidator) deliver(inv registry.Invalidation) {
	for _, fn := range v.subs {
		fn(inv)
	}
}

// catchUp applies a cache epoch read from the database: when it is ahead
// of the last one applied, some invalidation has not arrived (yet), so
// every cache is dropped.
func (v *invalidator) catchUp(epoch int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if epoch > v.epoch {
		v.epoch = epoch
		v.deliver(registry.Invalidation{All: true})
	}
}

// dropAll drops every cache without moving the epoch.
func (v *invalidator) dropAll() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.deliver(registry.Invalidation{All: true})
}

// applied records this process's own commit of epoch; its Service evicts
// what it forgot itself.
func (v *invalidator) applied(epoch int64) {
	v.mu.Lock()
	v.epoch = max(v.epoch, epoch)
	v.mu.Unlock()
}

// notified applies a notification from instance self's channel.
func (v *invalidator) notified(self string, n notice) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case n.Epoch <= v.epoch: // applied already (a poll, or this process's own)
		return
	case n.Source == self:
		// Our own commit, announced before Update recorded it.
	case n.Epoch == v.epoch+1 && !n.All:
		v.deliver(registry.Invalidation{Forgotten: n.IDs})
	default: // a gap: something was missed
		v.deliver(registry.Invalidation{All: true})
	}
	v.epoch = n.Epoch
}

// announce raises cache_epoch from epoch (read under the write lock, so
// no one else changed it) and notifies the other processes of the IDs
// this transaction forgot in the default context (ids); one forgotten in
// another context (other) drops every cache, as the notice names IDs of
// the default context only. Both take effect at commit. It returns the new
// epoch.
func (s *Store) announce(ctx context.Context, q pgx.Tx, epoch int64, ids []int64, other bool) (int64, error) {
	next := epoch + 1
	payload, err := json.Marshal(notice{Source: s.instance, Epoch: next, IDs: ids})
	if err != nil {
		return 0, err
	}
	if len(payload) > maxPayload || other {
		payload, _ = json.Marshal(notice{Source: s.instance, Epoch: next, All: true})
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE cache_epoch SET epoch = $1`, next)
	b.Queue(`SELECT pg_notify($1, $2)`, s.channel, string(payload))
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("announce forgotten schemas: %w", err)
	}
	return next, nil
}

// startInvalidation opens the LISTEN connection (unless NoListen), then
// reads the current epoch (nothing is cached yet, so nothing to drop; a
// commit after it is notified), and starts the listener and the poller.
func (s *Store) startInvalidation(ctx context.Context, cfg *pgx.ConnConfig) error {
	var conn *pgx.Conn
	if !s.opts.NoListen {
		var err error
		if conn, err = s.listenConn(ctx, cfg); err != nil {
			return err
		}
	}
	if err := s.pool.QueryRow(ctx, `SELECT epoch FROM cache_epoch`).Scan(&s.inv.epoch); err != nil {
		if conn != nil {
			_ = conn.Close(ctx)
		}
		return fmt.Errorf("read cache epoch: %w", err)
	}
	bg, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if conn != nil {
		s.done.Add(1)
		go s.listen(bg, cfg, conn)
	}
	if s.opts.CacheRefresh > 0 {
		s.done.Add(1)
		go s.poll(bg)
	}
	return nil
}

// listenConn opens a connection outside the pool and LISTENs on the
// store's channel.
func (s *Store) listenConn(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	cfg = cfg.Copy()
	// pg_stat_activity tells the listener from the pool's connections.
	cfg.RuntimeParams["application_name"] += " (invalidations)"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("listen for invalidations: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("listen for invalidations: %w", err)
	}
	return conn, nil
}

// listen receives notifications on conn until ctx ends. When the
// connection fails it reconnects (with a growing pause, up to the poll
// interval) and then catches up with the epoch, since notifications sent
// in between are lost.
func (s *Store) listen(ctx context.Context, cfg *pgx.ConnConfig, conn *pgx.Conn) {
	defer s.done.Done()
	pause := 50 * time.Millisecond
	for {
		for conn != nil {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				_ = conn.Close(context.Background())
				conn = nil
				if ctx.Err() != nil {
					return
				}
				s.opts.Logger.Warn("postgres: invalidation listener lost its connection; reconnecting", "error", err.Error())
				break
			}
			var nt notice
			if err := json.Unmarshal([]byte(n.Payload), &nt); err != nil {
				s.opts.Logger.Warn("postgres: bad invalidation payload; dropping every cache", "error", err.Error())
				s.inv.dropAll()
				continue
			}
			s.inv.notified(s.instance, nt)
			pause = 50 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, max(s.opts.CacheRefresh, time.Second))
		c, err := s.listenConn(ctx, cfg)
		if err != nil {
			if ctx.Err() == nil {
				s.opts.Logger.Warn("postgres: invalidation listener cannot reconnect", "error", err.Error())
			}
			continue
		}
		var epoch int64
		if err := c.QueryRow(ctx, `SELECT epoch FROM cache_epoch`).Scan(&epoch); err != nil {
			_ = c.Close(context.Background())
			continue
		}
		s.inv.catchUp(epoch)
		conn = c
		s.opts.Logger.Info("postgres: invalidation listener reconnected")
	}
}

// poll reads the epoch every CacheRefresh, in case a notification was
// lost: the staleness bound of the caches.
func (s *Store) poll(ctx context.Context) {
	defer s.done.Done()
	tick := time.NewTicker(s.opts.CacheRefresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var epoch int64
		qctx, cancel := context.WithTimeout(ctx, s.opts.CacheRefresh+s.opts.StatementTimeout)
		err := s.pool.QueryRow(qctx, `SELECT epoch FROM cache_epoch`).Scan(&epoch)
		cancel()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				s.opts.Logger.Warn("postgres: cannot poll the cache epoch", "error", err.Error())
			}
			continue
		}
		s.inv.catchUp(epoch)
	}
}
