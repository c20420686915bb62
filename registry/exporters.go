package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/charter-dev/charter/registry/exporter"
)

// errNoExporters is returned by exporter calls on a store whose
// transactions do not implement exporter.Tx.
var errNoExporters = errors.New("this store keeps no exporters (its Tx does not implement exporter.Tx)")

// Exporters returns the exporter API (/exporters) over s's store, on s's
// clock, sealing credentials with the WithExporterSealer Sealer; its
// writes are audited under the request's actor, in their transaction.
func (s *Service) Exporters() *exporter.Service {
	return exporter.New(exporterStore{s}, s.now, s.exporterSealer)
}

// WithExporterSealer sets the Sealer that encrypts exporters' credentials
// at rest (charter serve --secrets-key-file); without one, an exporter
// config with a credential is refused.
func WithExporterSealer(sealer *exporter.Sealer) Option {
	return func(s *Service) { s.exporterSealer = sealer }
}

// ExporterStore returns s's store as the exporters' store, for an
// exporter.Runner; its writes move s's generation like every write.
func (s *Service) ExporterStore() exporter.Store { return exporterStore{s} }

// ExportSource returns s as the source of an exporter.Runner.
func (s *Service) ExportSource() exporter.Source { return exportSource{s} }

// exporterStore adapts the Service's store to exporter.Store.
type exporterStore struct{ s *Service }

func exporterTx(tx Tx) (exporter.Tx, error) {
	e, ok := tx.(exporter.Tx)
	if !ok {
		return nil, errNoExporters
	}
	return e, nil
}

// View runs fn in a read transaction.
func (x exporterStore) View(ctx context.Context, fn func(exporter.Tx) error) error {
	return x.s.view(ctx, "read exporters", func(tx Tx) error {
		et, err := exporterTx(tx)
		if err != nil {
			return err
		}
		return fn(et)
	})
}

// Update runs fn in a write transaction, with an Audit appending to the
// governance audit log (target "exporter:NAME").
func (x exporterStore) Update(ctx context.Context, fn func(exporter.Tx, exporter.Audit) error) error {
	return x.s.update(ctx, "write exporters", func(tx Tx) error {
		et, err := exporterTx(tx)
		if err != nil {
			return err
		}
		return fn(et, func(action, name string, before, after any) error {
			return x.s.auditTx(ctx, tx, action, "", "exporter:"+name, before, after)
		})
	})
}

// exportSource adapts the Service to exporter.Source: it reads the store
// directly, so that a subject's alias (which reads follow) does not
// stand for its own versions.
type exportSource struct{ s *Service }

// Subjects returns every subject with a live version, sorted, with its
// live versions, config and mode, in one read transaction; subjects whose
// config names an alias are left out (they read as another subject).
func (x exportSource) Subjects(ctx context.Context) ([]exporter.Subject, error) {
	var out []exporter.Subject
	err := x.s.view(ctx, "export: list subjects", func(tx Tx) error {
		vs, err := tx.Versions(ctx, VersionQuery{})
		if err != nil {
			return err
		}
		out = out[:0]
		for i := 0; i < len(vs); {
			s := exporter.Subject{Name: vs[i].Subject}
			for ; i < len(vs) && vs[i].Subject == s.Name; i++ {
				s.Versions = append(s.Versions, vs[i].Version)
				s.IDs = append(s.IDs, vs[i].SchemaID)
			}
			m, err := tx.Mode(ctx, s.Name)
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				return err
			default:
				s.Mode = string(m)
			}
			c, err := tx.Config(ctx, s.Name)
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				return err
			case c.Alias != "":
				continue
			default:
				if s.Config, err = configUpdate(c); err != nil {
					return fmt.Errorf("encode config of %q: %w", s.Name, err)
				}
			}
			out = append(out, s)
		}
		return nil
	})
	return out, err
}

// Version returns version n of subject, soft-deleted or not. A subject
// whose config names an alias reads as its alias's, so it is refused
// (Subjects leaves such subjects out).
func (x exportSource) Version(ctx context.Context, subject string, n int) (exporter.Version, error) {
	sv, err := x.s.Version(ctx, subject, n, true)
	if err != nil {
		return exporter.Version{}, err
	}
	if sv.Subject != subject {
		return exporter.Version{}, fmt.Errorf("subject %q is an alias of %q: it is not exported", subject, sv.Subject)
	}
	st := sv.Schema
	out := exporter.Version{Subject: subject, Version: sv.Version, ID: st.ID, Type: string(st.Type), Schema: st.Text,
		Metadata: st.Metadata, RuleSet: st.RuleSet}
	for _, r := range st.References {
		out.References = append(out.References, exporter.Reference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return out, nil
}

// configUpdate returns c as a ConfigUpdateRequest body ("compatibility"
// for compatibilityLevel), nil when it sets nothing. Alias and
// aliasForDeks name subjects of the source, so they are not copied.
func configUpdate(c Config) (json.RawMessage, error) {
	c.Alias, c.AliasForDeks = "", ""
	b, err := json.Marshal(struct {
		Compatibility string `json:"compatibility,omitempty"`
		Config
	}{string(c.Compatibility), c})
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "compatibilityLevel")
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

// Generation is the Service's ReadGeneration, its two counts summed:
// both only grow, so the sum moves whenever either does.
func (x exportSource) Generation(ctx context.Context) (uint64, bool) {
	g, exact := x.s.ReadGeneration(ctx)
	return g.Local + uint64(g.Store), exact
}
