package upcast

import (
	"context"
	"sync"
)

// flight is a cache of values loaded at most once per key at a time: the
// first caller of a key loads it, every concurrent caller of the same key
// waits for that load (singleflight), and later callers get the cached
// value. Failed loads are not cached, so the next caller tries again.
type flight[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]*call[V]
}

type call[V any] struct {
	done chan struct{}
	val  V
	err  error
}

// get returns the value of key, loading it with load if needed. A waiting
// caller whose ctx ends returns ctx.Err(); the load itself goes on for the
// others.
func (f *flight[K, V]) get(ctx context.Context, key K, load func() (V, error)) (V, error) {
	f.mu.RLock()
	c, ok := f.m[key]
	f.mu.RUnlock()
	if ok {
		select {
		case <-c.done:
			if c.err == nil {
				return c.val, nil
			}
		default:
			return f.wait(ctx, c)
		}
	}
	f.mu.Lock()
	if c, ok = f.m[key]; ok {
		select {
		case <-c.done:
			if c.err != nil {
				break // a failed load: start a new one below
			}
			f.mu.Unlock()
			return c.val, nil
		default:
			f.mu.Unlock()
			return f.wait(ctx, c)
		}
	}
	if f.m == nil {
		f.m = map[K]*call[V]{}
	}
	c = &call[V]{done: make(chan struct{})}
	f.m[key] = c
	f.mu.Unlock()

	c.val, c.err = load()
	close(c.done)
	if c.err != nil {
		f.mu.Lock()
		if f.m[key] == c {
			delete(f.m, key)
		}
		f.mu.Unlock()
	}
	return c.val, c.err
}

func (f *flight[K, V]) wait(ctx context.Context, c *call[V]) (V, error) {
	select {
	case <-c.done:
		return c.val, c.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// forget drops key, so the next get loads it again.
func (f *flight[K, V]) forget(key K) {
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
}
