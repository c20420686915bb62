package project

import (
	"encoding/json"
	"sort"

	"github.com/charter-dev/charter/pii"
)

// pii returns charter.yaml's metadata of a schema as package pii reads
// it (tags, properties, sensitive paths); nil is none.
func (m *MetadataConfig) pii() pii.Metadata {
	if m == nil {
		return pii.Metadata{}
	}
	return pii.Metadata{Tags: m.Tags, Properties: m.Properties, Sensitive: m.Sensitive}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// metadataJSON encodes registry metadata for PriorVersion.Metadata.
func metadataJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}
