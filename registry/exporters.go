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
// clock; its writes are audited under the request's actor, in their
// transaction.
func (s *Service) Exporters() *exporter.Service { return exporter.New(exporterStore{s}, s.now) }

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

// Subjects returns every subject with a live version, sorted, but those
// whose config names an alias (they read as another subject).
func (x exportSource) Subjects(ctx context.Context) ([]string, error) {
	var out []string
	err := x.s.view(ctx, "export: list subjects", func(tx Tx) error {
		vs, err := tx.Versions(ctx, VersionQuery{})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, v := range vs {
			if n := len(out); n > 0 && out[n-1] == v.Subject {
				continue
			}
			c, err := tx.Config(ctx, v.Subject)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			if err == nil && c.Alias != "" {
				continue
			}
			out = append(out, v.Subject)
		}
		return nil
	})
	return out, err
}

// Versions returns subject's live versions, ascending.
func (x exportSource) Versions(ctx context.Context, subject string) ([]int, error) {
	var out []int
	err := x.s.view(ctx, "export: list versions", func(tx Tx) error {
		vs, err := tx.Versions(ctx, VersionQuery{Subject: subject})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, v := range vs {
			out = append(out, v.Version)
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

// SubjectConfig returns the config set on subject as a ConfigUpdateRequest
// body, nil when it has none. Alias and aliasForDeks name subjects of
// the source, so they are not copied.
func (x exportSource) SubjectConfig(ctx context.Context, subject string) (json.RawMessage, error) {
	var out json.RawMessage
	err := x.s.view(ctx, "export: read config", func(tx Tx) error {
		out = nil
		c, err := tx.Config(ctx, subject)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		c.Alias, c.AliasForDeks = "", ""
		b, err := json.Marshal(struct {
			Compatibility string `json:"compatibility,omitempty"`
			Config
		}{string(c.Compatibility), c})
		if err != nil {
			return fmt.Errorf("encode config of %q: %w", subject, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		delete(m, "compatibilityLevel")
		if len(m) == 0 {
			return nil
		}
		out, err = json.Marshal(m)
		return err
	})
	return out, err
}

// Generation is the Service's ReadGeneration, its two counts summed:
// both only grow, so the sum moves whenever either does.
func (x exportSource) Generation(ctx context.Context) (uint64, bool) {
	g, exact := x.s.ReadGeneration(ctx)
	return g.Local + uint64(g.Store), exact
}
