package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimiterKeys bounds the buckets kept; beyond it, full (idle) buckets
// are dropped.
const maxLimiterKeys = 10_000

// limiter is a token bucket per key (a principal, or an anonymous
// client's address).
type limiter struct {
	rps   rate.Limit
	burst int
	mu    sync.Mutex
	m     map[string]*rate.Limiter
}

func newLimiter(rps float64, burst int) *limiter {
	return &limiter{rps: rate.Limit(rps), burst: burst, m: map[string]*rate.Limiter{}}
}

// allow takes one token of key's bucket; when there is none it returns
// false and how long until there is.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	b, ok := l.m[key]
	if !ok {
		if len(l.m) >= maxLimiterKeys {
			for k, v := range l.m {
				if v.TokensAt(now) >= float64(l.burst) {
					delete(l.m, k)
				}
			}
		}
		b = rate.NewLimiter(l.rps, l.burst)
		l.m[key] = b
	}
	l.mu.Unlock()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Allow reports whether a request of key (a principal name, or
// "anonymous@" and the client address) may go on under the auth file's
// rate_limit; when not, how long the client should wait. Always true
// without a rate_limit.
func (a *Authenticator) Allow(key string) (bool, time.Duration) {
	l := a.state.Load().limiter
	if l == nil {
		return true, 0
	}
	return l.allow(key, a.opts.Now())
}

// Failed credentials are limited per client address whatever the auth
// file says: each costs a bcrypt comparison or a signature check, so
// guessing passwords must neither succeed quickly nor tie up the CPU.
const (
	failuresPerSecond = 2
	failureBurst      = 20
)

// failureLimiter is shared by every reload, so a SIGHUP does not reset
// anyone's count.
var failureLimiter = newLimiter(failuresPerSecond, failureBurst)

// FailureWait reports, for a client address, how long it must wait
// before its credentials are checked again: 0 while it has failed fewer
// than failureBurst times recently (refilled at failuresPerSecond).
func (a *Authenticator) FailureWait(addr string) time.Duration {
	return failureLimiter.wait(addr, a.opts.Now())
}

// Failed records a request from addr whose credentials were refused.
func (a *Authenticator) Failed(addr string) {
	failureLimiter.allow(addr, a.opts.Now())
}

// wait is how long key must wait for a token, without taking one.
func (l *limiter) wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	b, ok := l.m[key]
	l.mu.Unlock()
	if !ok {
		return 0
	}
	if t := b.TokensAt(now); t < 1 {
		return time.Duration((1 - t) / float64(l.rps) * float64(time.Second))
	}
	return 0
}
