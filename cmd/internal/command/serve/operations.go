package serve

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/registry/api"
)

// Operations are the settings of `charter serve` for the tools around
// it: browser tools on other origins (CORS) and Prometheus.
type Operations struct {
	// CORSOrigins are the origins (scheme://host[:port]) whose browser
	// pages may call the API, credentials included; "*" lets any origin
	// read without credentials (api.Options.CORSOrigins).
	CORSOrigins []string
	// MetricsPublic serves GET /metrics without credentials when
	// authentication is on; MetricsPerSubject adds one series per subject
	// (api.MetricsOptions).
	MetricsPublic, MetricsPerSubject bool
	// CacheBytes is the byte budget of the view of encoded read answers
	// (api.Options.CacheBytes; 0 the default, negative off).
	CacheBytes int
}

// addOperationsFlags declares the flags of o.
func addOperationsFlags(f *pflag.FlagSet, o *Operations) {
	f.StringSliceVar(&o.CORSOrigins, "cors-origin", nil, "origin (scheme://host[:port]) whose browser pages may call the API with credentials, repeatable; \"*\": any origin, without credentials")
	f.BoolVar(&o.MetricsPublic, "metrics-public", false, "serve GET /metrics without credentials when --auth-config is on (for Prometheus scrapers without a token)")
	f.IntVar(&o.CacheBytes, "cache-bytes", api.DefaultCacheBytes, "byte budget of the in-memory view of read answers (latest, versions, lookups, subjects, config, mode), least recently used evicted first; -1 turns it off (on PostgreSQL each request checks the database's write count first)")
	f.BoolVar(&o.MetricsPerSubject, "metrics-per-subject", false, "add charter_subject_versions, one metric series per subject (many subjects make many series)")
}

// validate reports the first setting that cannot work.
func (o Operations) validate() error {
	if err := cacheBudget("--cache-bytes", o.CacheBytes); err != nil {
		return err
	}
	for _, origin := range o.CORSOrigins {
		if origin == "*" {
			continue
		}
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("invalid --cors-origin %q: want an origin such as https://tools.example.com or http://localhost:3000 (scheme, host and port only), or *", origin)
		}
	}
	return nil
}

// apiOptions sets o's part of the API's options.
func (o Operations) apiOptions(opts *api.Options) {
	opts.CORSOrigins = o.CORSOrigins
	opts.Metrics = api.MetricsOptions{Public: o.MetricsPublic, PerSubject: o.MetricsPerSubject}
	opts.CacheBytes = o.CacheBytes
}

// cacheBudget checks a cache's byte budget flag: a positive number of
// bytes, or -1 for none.
func cacheBudget(flag string, n int) error {
	if n > 0 || n == -1 {
		return nil
	}
	return fmt.Errorf("invalid %s %d: want a positive number of bytes, or -1 for none", flag, n)
}
