package sqlite_test

import (
	"fmt"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// BenchmarkVersionsSubject1000 reads the 1,000 versions of one subject among
// ten such subjects (10,000 rows), as the service does on every register.
func BenchmarkVersionsSubject1000(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	const subjects, versions = 10, 1000
	err := s.Update(b.Context(), func(tx registry.Tx) error {
		id, err := tx.CreateSchema(b.Context(), registry.Schema{Type: "AVRO", Text: `"int"`, Fingerprint: "fp"})
		if err != nil {
			return err
		}
		for i := range subjects {
			for v := 1; v <= versions; v++ {
				sv := registry.SubjectVersion{Subject: fmt.Sprintf("subject-%d-value", i), Version: v, SchemaID: id, Deleted: v%100 == 0}
				if err := tx.PutVersion(b.Context(), sv); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	q := registry.VersionQuery{Subject: "subject-5-value", IncludeDeleted: true}
	for b.Loop() {
		err := s.View(b.Context(), func(tx registry.Tx) error {
			vs, err := tx.Versions(b.Context(), q)
			if err == nil && len(vs) != versions {
				err = fmt.Errorf("got %d versions, want %d", len(vs), versions)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*versions), "ns/version")
}

// BenchmarkCreateSchema is one durable Update (fsync included) creating one
// schema with an allocated ID.
func BenchmarkCreateSchema(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	i := 0
	for b.Loop() {
		i++
		err := s.Update(b.Context(), func(tx registry.Tx) error {
			_, err := tx.CreateSchema(b.Context(), registry.Schema{
				Type: "AVRO", Text: fmt.Sprintf(`{"type":"fixed","name":"f","size":%d}`, i),
				Fingerprint: fmt.Sprintf("fp-%d", i),
			})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchemaByID is one View reading one schema (with a reference and
// metadata) by ID out of 1,000.
func BenchmarkSchemaByID(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	const n = 1000
	err := s.Update(b.Context(), func(tx registry.Tx) error {
		for i := range n {
			_, err := tx.CreateSchema(b.Context(), registry.Schema{
				Type: "AVRO", Text: fmt.Sprintf(`{"type":"record","name":"r%d","fields":[{"name":"a","type":"int"}]}`, i),
				References:  []registry.Reference{{Name: "dep", Subject: "dep-value", Version: 1}},
				Metadata:    []byte(`{"properties":{"owner":"team-a"}}`),
				Fingerprint: fmt.Sprintf("fp-%d", i),
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		id := int64(i%n + 1)
		i++
		err := s.View(b.Context(), func(tx registry.Tx) error {
			sc, err := tx.SchemaByID(b.Context(), "", id)
			if err == nil && sc.ID != id {
				err = fmt.Errorf("got schema %d, want %d", sc.ID, id)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
