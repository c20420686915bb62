package pii_test

import (
	"reflect"
	"testing"

	"github.com/charter-dev/charter/pii"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"customer_email", []string{"customer", "email"}},
		{"customerEmail", []string{"customer", "email"}},
		{"CustomerEmail", []string{"customer", "email"}},
		{"customer-email", []string{"customer", "email"}},
		{"customer.email", []string{"customer", "email"}},
		{"CUSTOMER_EMAIL", []string{"customer", "email"}},
		{"customerSSN", []string{"customer", "ssn"}},
		{"SSNNumber", []string{"ssn", "number"}},
		{"IPAddress", []string{"ip", "address"}},
		{"clientIPv4", []string{"client", "ipv4"}},
		{"IPv6Address", []string{"ipv6", "address"}},
		{"address2", []string{"address2"}},
		{"addressLine1", []string{"address", "line1"}},
		{"e-mail", []string{"e", "mail"}},
		{"__x__", []string{"x"}},
		{"", nil},
		{"Straße_Nummer", []string{"straße", "nummer"}},
	}
	for _, tt := range tests {
		if got := pii.Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := pii.Normalize("billingEmailAddress"); got != "billing_email_address" {
		t.Errorf("Normalize = %q", got)
	}
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ  string
		want pii.Kind
	}{
		{"string", pii.KindString},
		{"bytes", pii.KindString},
		{"uuid", pii.KindString},
		{"boolean", pii.KindBoolean},
		{"bool", pii.KindBoolean},
		{"int", pii.KindNumber},
		{"sfixed64", pii.KindNumber},
		{"integer", pii.KindNumber},
		{"decimal(9,2)", pii.KindNumber},
		{"date", pii.KindTemporal},
		{"timestamp-millis", pii.KindTemporal},
		{"google.protobuf.Timestamp", pii.KindTemporal},
		{"google.protobuf.StringValue", pii.KindString},
		{"union{null,string}", pii.KindString},
		{"union{null,boolean}", pii.KindBoolean},
		{"union{string,long}", pii.KindUnknown},
		{"union{null}", pii.KindUnknown},
		{"array<string>", pii.KindString},
		{"map<long>", pii.KindNumber},
		{"map<string, int64>", pii.KindNumber},
		{"map<string, map<string, bool>>", pii.KindBoolean},
		{"repeated string", pii.KindString},
		{"array<union{null,com.acme.Gender}>", pii.KindNamed},
		{"com.acme.Address", pii.KindNamed},
		{"Address", pii.KindNamed},
		{"object", pii.KindRecord},
		{"string|null", pii.KindString},
		{"", pii.KindUnknown},
		{"array", pii.KindUnknown},
		{"42", pii.KindUnknown},
	}
	for _, tt := range tests {
		if got := pii.KindOf(tt.typ); got != tt.want {
			t.Errorf("KindOf(%q) = %v, want %v", tt.typ, got, tt.want)
		}
	}
	if s := (pii.KindString | pii.KindNumber).String(); s != "string|number" {
		t.Errorf("Kind.String = %q", s)
	}
}
