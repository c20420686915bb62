package pii_test

import (
	"fmt"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/pii"
)

func ExampleMatchGlob() {
	fmt.Println(pii.MatchGlob("**.ssn", "com.acme.Customer.ssn"))
	fmt.Println(pii.MatchGlob("com.acme.*.ssn", "com.acme.Customer.ssn"))
	fmt.Println(pii.MatchGlob("com.*.ssn", "com.acme.Customer.ssn"))
	// Output:
	// true
	// true
	// false
}

func ExampleDetector_Detect() {
	d := pii.DefaultDetector()
	for _, f := range []compat.Field{
		{Name: "billingEmailAddress", Type: "string"},
		{Name: "email_verified", Type: "boolean"},
		{Name: "hotel", Type: "string"},
		{Name: "contact", Type: "string", Doc: "Date of birth of the contact"},
	} {
		for _, m := range d.Detect(f) {
			fmt.Printf("%s: %s %s (%s)\n", f.Name, m.PatternID, m.Confidence, m.Source)
		}
	}
	// Output:
	// billingEmailAddress: PII_EMAIL high (name)
	// contact: PII_DATE_OF_BIRTH medium (doc)
}

func ExampleEvaluate() {
	parse := func(text string) []compat.Field {
		s, err := avro.Format{}.Parse(text, nil)
		if err != nil {
			panic(err)
		}
		return compat.Fields(s)
	}
	v1 := parse(`{"type":"record","name":"Customer","namespace":"shop","fields":[{"name":"id","type":"string"}]}`)
	v2 := parse(`{"type":"record","name":"Customer","namespace":"shop","fields":[
		{"name":"id","type":"string"},
		{"name":"customer_email","type":"string"}]}`)
	cfg := pii.Config{Severity: map[string]string{pii.RuleUntagged: "error"}}
	for _, f := range pii.Evaluate(pii.Input{Previous: v1, Current: v2, Consumers: []string{"billing"}}, cfg) {
		fmt.Println(f.Severity, f.RuleID, f.Path)
	}
	// Output:
	// warning PII_NEW_FIELD_WITH_CONSUMERS .customer_email
	// error PII_UNTAGGED .customer_email
}
