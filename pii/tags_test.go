package pii_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/pii"
)

func TestConfluentName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    compat.Field
		want string
	}{
		{compat.Field{Path: ".customer.contact.phone", FullName: "shop.contact.Contact.phone"}, "shop.contact.Contact.phone"},
		{compat.Field{Path: ".customer.ssn"}, "$.customer.ssn"},
		{compat.Field{Path: ".lines[].sku"}, "$.lines.sku"},
		{compat.Field{Path: ".m{}.v"}, "$.m.v"},
		{compat.Field{Path: ".billing<shop.Address>.city"}, "$.billing.city"},
		{compat.Field{Path: "[].ip"}, "$.ip"},
	}
	for _, tt := range tests {
		if got := pii.ConfluentName(tt.f); got != tt.want {
			t.Errorf("ConfluentName(%q) = %q, want %q", tt.f.Path, got, tt.want)
		}
	}
}

func TestEffectiveTags(t *testing.T) {
	t.Parallel()
	ssn := compat.Field{Path: ".ssn", Name: "ssn", FullName: "com.acme.Customer.ssn", Tags: []string{"SENSITIVE"}}
	tests := []struct {
		name string
		f    compat.Field
		md   pii.Metadata
		want []string
	}{
		{"inline only", ssn, pii.Metadata{}, []string{"SENSITIVE"}},
		{"union with a matching glob", ssn, pii.Metadata{Tags: map[string][]string{"**.ssn": {"PII"}}}, []string{"PII", "SENSITIVE"}},
		{"glob on the record", ssn, pii.Metadata{Tags: map[string][]string{"com.acme.Customer.*": {"GDPR", "PII"}}}, []string{"GDPR", "PII", "SENSITIVE"}},
		{"non-matching glob", ssn, pii.Metadata{Tags: map[string][]string{"**.email": {"PII"}}}, []string{"SENSITIVE"}},
		{"duplicates and empties dropped", ssn, pii.Metadata{Tags: map[string][]string{"**.ssn": {"SENSITIVE", ""}, "**.s?n": {"PII"}}}, []string{"PII", "SENSITIVE"}},
		{"glob matches the full name, not the path", compat.Field{Path: ".ssn", FullName: "X.ssn"},
			pii.Metadata{Tags: map[string][]string{".ssn": {"PII"}}}, nil},
		{"JSON-style name without FullName", compat.Field{Path: ".customer.ssn"},
			pii.Metadata{Tags: map[string][]string{"$.customer.*": {"PII"}}}, []string{"PII"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pii.EffectiveTags(tt.f, tt.md); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResolveTagsCopies(t *testing.T) {
	t.Parallel()
	in := []compat.Field{
		{Path: ".a", FullName: "R.a", Tags: []string{"X"}},
		{Path: ".b", FullName: "R.b"},
	}
	out := pii.ResolveTags(in, pii.Metadata{Tags: map[string][]string{"R.*": {"PII"}}})
	if !reflect.DeepEqual(out[0].Tags, []string{"PII", "X"}) || !reflect.DeepEqual(out[1].Tags, []string{"PII"}) {
		t.Errorf("resolved tags: %q, %q", out[0].Tags, out[1].Tags)
	}
	if !reflect.DeepEqual(in[0].Tags, []string{"X"}) || in[1].Tags != nil {
		t.Errorf("input modified: %q, %q", in[0].Tags, in[1].Tags)
	}
	var zero pii.TagResolver
	if got := zero.Tags(in[0]); !reflect.DeepEqual(got, []string{"X"}) {
		t.Errorf("zero resolver: %q", got)
	}
}

func TestParseMetadataAndRuleSet(t *testing.T) {
	t.Parallel()
	md, err := pii.ParseMetadata([]byte(`{"tags":{"**.ssn":["PII"]},"properties":{"owner":"risk"},"sensitive":["k"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(md.Tags["**.ssn"], []string{"PII"}) || md.Properties["owner"] != "risk" || !reflect.DeepEqual(md.Sensitive, []string{"k"}) {
		t.Errorf("metadata: %+v", md)
	}
	rs, err := pii.ParseRuleSet([]byte(`{"domainRules":[{"name":"enc","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT","tags":["PII"],"params":{"encrypt.kek.name":"k1"}}],"migrationRules":[{"name":"up","kind":"TRANSFORM","mode":"UPGRADE","type":"JSONATA","expr":"$"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.DomainRules) != 1 || rs.DomainRules[0].Type != "ENCRYPT" || rs.DomainRules[0].Params["encrypt.kek.name"] != "k1" ||
		len(rs.MigrationRules) != 1 || rs.MigrationRules[0].Mode != "UPGRADE" {
		t.Errorf("ruleSet: %+v", rs)
	}
	for _, empty := range []string{"", " null ", "\n"} {
		if md, err := pii.ParseMetadata([]byte(empty)); err != nil || md.Tags != nil {
			t.Errorf("ParseMetadata(%q) = %+v, %v", empty, md, err)
		}
		if rs, err := pii.ParseRuleSet([]byte(empty)); err != nil || rs.DomainRules != nil {
			t.Errorf("ParseRuleSet(%q) = %+v, %v", empty, rs, err)
		}
	}
	for _, bad := range []string{`[]`, `{"tags":{"a":"PII"}}`, `{`} {
		if _, err := pii.ParseMetadata([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "parse metadata: ") {
			t.Errorf("ParseMetadata(%q): err = %v", bad, err)
		}
	}
	if _, err := pii.ParseRuleSet([]byte(`{"domainRules":{}}`)); err == nil || !strings.HasPrefix(err.Error(), "parse ruleSet: ") {
		t.Errorf("ParseRuleSet: err = %v", err)
	}
}
