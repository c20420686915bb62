package upcast

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

// Source is where an Upcaster reads schemas: the registry (RegistrySource)
// or schemas held in memory (StaticSource). Reading old versions is its one
// job; the upcaster never writes.
type Source interface {
	// Versions lists every version the source holds for subject, soft
	// deleted ones included (events written with them still exist), in
	// ascending order. Error: one matching srerr.ErrSubjectNotFound when
	// the subject is unknown.
	Versions(ctx context.Context, subject string) ([]int, error)
	// Version returns one version of subject, soft-deleted or not, with
	// its schema ID, metadata and ruleSet. Errors: srerr.ErrSubjectNotFound,
	// srerr.ErrVersionNotFound.
	Version(ctx context.Context, subject string, version int) (client.SubjectSchema, error)
	// VersionsOfID lists the subject versions that use schema id. Error:
	// srerr.ErrSchemaNotFound.
	VersionsOfID(ctx context.Context, id int64) ([]client.SubjectVersion, error)
}

// RegistrySource reads schemas from a registry through its client,
// soft-deleted versions included.
func RegistrySource(c *client.Client) Source { return registrySource{c} }

type registrySource struct{ c *client.Client }

func (r registrySource) Versions(ctx context.Context, subject string) ([]int, error) {
	return r.c.Versions(ctx, subject, client.IncludeDeleted())
}

func (r registrySource) Version(ctx context.Context, subject string, version int) (client.SubjectSchema, error) {
	return r.c.Version(ctx, subject, version, client.IncludeDeleted())
}

func (r registrySource) VersionsOfID(ctx context.Context, id int64) ([]client.SubjectVersion, error) {
	return r.c.VersionsOfID(ctx, id, client.IncludeDeleted())
}

// StaticSource holds schemas in memory: for tests, examples and jobs that
// ship their schemas. The zero value is empty and ready; it is safe for
// concurrent use.
type StaticSource struct {
	mu       sync.RWMutex
	subjects map[string]map[int]client.SubjectSchema
	nextID   int64
}

// Add stores s as version s.Version of s.Subject. A zero s.ID gets the
// next free ID; a zero s.Type means AVRO. Adding a version twice is an
// error.
func (s *StaticSource) Add(ss client.SubjectSchema) error {
	if ss.Subject == "" || ss.Version < 1 {
		return fmt.Errorf("add schema: want a subject and a version ≥ 1, got %q v%d", ss.Subject, ss.Version)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subjects == nil {
		s.subjects = map[string]map[int]client.SubjectSchema{}
	}
	vs := s.subjects[ss.Subject]
	if vs == nil {
		vs = map[int]client.SubjectSchema{}
		s.subjects[ss.Subject] = vs
	}
	if _, dup := vs[ss.Version]; dup {
		return fmt.Errorf("add schema: %s v%d already added", ss.Subject, ss.Version)
	}
	if ss.Type == "" {
		ss.Type = "AVRO"
	}
	if ss.ID == 0 {
		s.nextID++
		ss.ID = s.nextID
	} else if ss.ID > s.nextID {
		s.nextID = ss.ID
	}
	vs[ss.Version] = ss
	return nil
}

// Versions implements Source.
func (s *StaticSource) Versions(_ context.Context, subject string) ([]int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vs, ok := s.subjects[subject]
	if !ok {
		return nil, srerr.New(srerr.ErrSubjectNotFound, "Subject '%s' not found.", subject)
	}
	out := make([]int, 0, len(vs))
	for v := range vs {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

// Version implements Source.
func (s *StaticSource) Version(_ context.Context, subject string, version int) (client.SubjectSchema, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vs, ok := s.subjects[subject]
	if !ok {
		return client.SubjectSchema{}, srerr.New(srerr.ErrSubjectNotFound, "Subject '%s' not found.", subject)
	}
	if version == client.Latest {
		for v := range vs {
			version = max(version, v)
		}
	}
	ss, ok := vs[version]
	if !ok {
		return client.SubjectSchema{}, srerr.New(srerr.ErrVersionNotFound, "Version %d not found.", version)
	}
	return ss, nil
}

// VersionsOfID implements Source.
func (s *StaticSource) VersionsOfID(_ context.Context, id int64) ([]client.SubjectVersion, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []client.SubjectVersion
	for subject, vs := range s.subjects {
		for v, ss := range vs {
			if ss.ID == id {
				out = append(out, client.SubjectVersion{Subject: subject, Version: v})
			}
		}
	}
	if len(out) == 0 {
		return nil, srerr.New(srerr.ErrSchemaNotFound, "Schema %d not found", id)
	}
	slices.SortFunc(out, func(a, b client.SubjectVersion) int {
		if a.Subject != b.Subject {
			if a.Subject < b.Subject {
				return -1
			}
			return 1
		}
		return a.Version - b.Version
	})
	return out, nil
}
