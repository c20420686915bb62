package project

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// RegistrySource is the part of the registry client the registry baseline
// reads; *client.Client implements it.
type RegistrySource interface {
	Subjects(ctx context.Context, opts ...client.ReadOption) ([]string, error)
	Versions(ctx context.Context, subject string, opts ...client.ReadOption) ([]int, error)
	Version(ctx context.Context, subject string, n int, opts ...client.ReadOption) (client.SubjectSchema, error)
	Config(ctx context.Context, subject string, defaultToGlobal bool) (client.Config, error)
}

var _ RegistrySource = (*client.Client)(nil)

// stateSource is the optional part of a RegistrySource that reads a
// subject's governance state (Charter's GET
// /governance/subjects/{s}/state?at=); *client.Client implements it.
type stateSource interface {
	GovernanceStateJSON(ctx context.Context, subject string, at time.Time) (json.RawMessage, error)
}

var _ stateSource = (*client.Client)(nil)

// registryConcurrency bounds the requests one check sends at a time.
const registryConcurrency = 8

type registryBaseline struct {
	src RegistrySource
	url string
}

// RegistryBaseline compares with the registered versions of each subject:
// the latest for non-transitive levels, all of them for transitive ones
// (all are fetched: a schema equal to any live version is its
// re-registration).
// url names the registry in reports. Each subject's governance state
// comes in one call (GET /governance/subjects/{s}/state?at=), and Check
// judges the working tree's schema with it as registering it would be
// judged (package action/gate). A subject is checked at the level the
// registry applies to it (the state's compatibility), as registration
// judges it: a level charter.yaml's mapping or overrides set replaces it
// only when it is at least as strict (its directions include the
// registry's, and it is transitive if the registry's is); a weaker one is
// ignored, with a RuleLevelIgnored notice. Protobuf subjects
// are checked with the rule profile of the registry's governance policy
// (protobufProfile), or charter.yaml's protobuf_profile when it is
// stricter (WIRE_JSON over WIRE; another is ignored with a
// RuleProfileIgnored notice). Each version comes with its references
// resolved (PriorVersion.Deps), which decide with its metadata whether
// the working tree's schema is that version; the state gives the
// subject's normalize, compatibilityGroup and next version number. A
// registry without Charter's governance API (Confluent's) gives its
// level through GET /config/{subject}?defaultToGlobal=true, the default
// profile, CONFLUENT, and no state: charter.yaml's is used, as offline.
func RegistryBaseline(src RegistrySource, url string) Baseline {
	return &registryBaseline{src: src, url: url}
}

// String is "registry:URL".
func (b *registryBaseline) String() string { return "registry:" + b.url }

// Load checks that the registry answers, then fetches the versions of the
// subjects asked, registryConcurrency at a time, references resolved.
func (b *registryBaseline) Load(ctx context.Context, p *Project, want map[string]compat.Level) (*BaselineSet, error) {
	return b.loadAt(ctx, p, want, time.Time{})
}

// loadAt is Load with the governance state as of at (zero: the
// registry's clock).
func (b *registryBaseline) loadAt(ctx context.Context, p *Project, want map[string]compat.Level, at time.Time) (*BaselineSet, error) {
	if _, err := b.src.Subjects(ctx); err != nil {
		return nil, fmt.Errorf("cannot reach the registry at %s (%w); pass --against git:REF or dir:PATH to check without one", b.url, err)
	}
	subjects := make([]string, 0, len(want))
	for s := range want {
		subjects = append(subjects, s)
	}
	sort.Strings(subjects)
	set := &BaselineSet{Subjects: map[string]*Prior{}, Levels: map[string]compat.Level{}, ProtobufProfiles: map[string]string{},
		States: map[string]*governance.SubjectState{}}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, registryConcurrency)
		refs     = &refCache{src: b.src, m: map[refKey]*refEntry{}}
	)
	for _, subject := range subjects {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			// The registry's level for every subject, also one that
			// charter.yaml sets a level for: it decides (Check keeps
			// charter.yaml's only when it is at least as strict).
			var level compat.Level
			st, err := b.state(ctx, subject, at)
			switch {
			case err != nil:
			case st != nil && st.Compatibility != "":
				level = st.Compatibility
			default:
				level, err = b.level(ctx, subject)
			}
			var prior *Prior
			if err == nil {
				prior, err = b.subject(ctx, p, refs, subject)
			}
			profile := ""
			if st != nil && prior != nil && prior.Format == compat.Protobuf {
				profile = st.Policy.ProtobufProfile
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			set.Levels[subject] = level
			if prior != nil {
				set.Subjects[subject] = prior
			}
			if profile != "" {
				set.ProtobufProfiles[subject] = profile
			}
			if st != nil {
				set.States[subject] = st
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return set, nil
}

// level returns the compatibility level the registry applies to subject.
func (b *registryBaseline) level(ctx context.Context, subject string) (compat.Level, error) {
	cfg, err := b.src.Config(ctx, subject, true)
	if err != nil {
		return "", fmt.Errorf("registry %s: %w", b.url, err)
	}
	if cfg.Compatibility == "" {
		return compat.DefaultLevel, nil
	}
	return cfg.Compatibility, nil
}

// state returns the governance state of subject as of at, nil when the
// registry has no governance API (a Confluent registry answers 404).
func (b *registryBaseline) state(ctx context.Context, subject string, at time.Time) (*governance.SubjectState, error) {
	ss, ok := b.src.(stateSource)
	if !ok {
		return nil, nil
	}
	raw, err := ss.GovernanceStateJSON(ctx, subject, at)
	if err != nil {
		var se *client.StatusError
		var sr *srerr.Error
		if errors.As(err, &se) && se.Status == http.StatusNotFound || errors.As(err, &sr) && sr.Status == http.StatusNotFound {
			return nil, nil
		}
		return nil, fmt.Errorf("registry %s: governance state of %q: %w", b.url, subject, err)
	}
	var st governance.SubjectState
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("registry %s: governance state of %q: %w", b.url, subject, err)
	}
	return &st, nil
}

func (b *registryBaseline) subject(ctx context.Context, p *Project, refs *refCache, subject string) (*Prior, error) {
	versions, err := b.src.Versions(ctx, subject)
	if errors.Is(err, srerr.ErrSubjectNotFound) || (err == nil && len(versions) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", b.url, err)
	}
	// Every live version, also for a non-transitive level (which is
	// compared with the latest only): a candidate equal to any of them
	// is the re-registration of that version, as registration judges it.
	prior := &Prior{}
	for _, n := range versions {
		v, err := b.src.Version(ctx, subject, n)
		if errors.Is(err, srerr.ErrVersionNotFound) {
			continue // deleted since it was listed
		}
		if err != nil {
			return nil, fmt.Errorf("registry %s: %w", b.url, err)
		}
		prior.Format = v.Type
		pv := PriorVersion{Version: v.Version, Text: v.Text}
		if v.Metadata != nil {
			pv.Metadata = metadataJSON(v.Metadata)
		}
		if v.RuleSet != nil {
			pv.RuleSet = metadataJSON(v.RuleSet)
		}
		deps, err := refs.deps(ctx, v.References, 0)
		if err != nil {
			return nil, fmt.Errorf("registry %s: %w", b.url, err)
		}
		pv.Deps = deps
		if f, ok := p.Formats[v.Type]; !ok {
			pv.Err = fmt.Errorf("no %s format in this build", v.Type)
		} else {
			pv.Schema, pv.Err = parseSafely(f, v.Text, deps)
		}
		prior.Versions = append(prior.Versions, pv)
	}
	if len(prior.Versions) == 0 {
		return nil, nil
	}
	return prior, nil
}

type refKey struct {
	subject string
	version int
}

type refEntry struct {
	once sync.Once
	v    client.SubjectSchema
	err  error
}

// refCache fetches referenced schemas once per check.
type refCache struct {
	src RegistrySource
	mu  sync.Mutex
	m   map[refKey]*refEntry
}

func (c *refCache) get(ctx context.Context, k refKey) (client.SubjectSchema, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		e = &refEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = c.src.Version(ctx, k.subject, k.version) })
	return e.v, e.err
}

// deps resolves references depth first: a reference's own references
// come before it, each schema once.
func (c *refCache) deps(ctx context.Context, refs []client.Reference, depth int) ([]compat.Dependency, error) {
	if depth > 32 {
		return nil, fmt.Errorf("schema references nest deeper than 32")
	}
	var out []compat.Dependency
	seen := map[string]bool{}
	for _, r := range refs {
		v, err := c.get(ctx, refKey{r.Subject, r.Version})
		if err != nil {
			return nil, fmt.Errorf("reference %q (subject %q version %d): %w", r.Name, r.Subject, r.Version, err)
		}
		sub, err := c.deps(ctx, v.References, depth+1)
		if err != nil {
			return nil, err
		}
		for _, d := range append(sub, compat.Dependency{Name: r.Name, Text: v.Text}) {
			if !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d)
			}
		}
	}
	return out, nil
}
