package project_test

import (
	"context"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
)

func TestParseDiffSide(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg     string
		want    project.DiffSide
		str     string
		wantErr string
	}{
		{arg: "schemas/orders.avsc", want: project.DiffSide{File: "schemas/orders.avsc"}, str: "schemas/orders.avsc"},
		{arg: "registry:orders-value", want: project.DiffSide{Subject: "orders-value", Version: client.Latest}, str: "registry:orders-value@latest"},
		{arg: "registry:orders-value@latest", want: project.DiffSide{Subject: "orders-value", Version: client.Latest}, str: "registry:orders-value@latest"},
		{arg: "registry:orders-value@3", want: project.DiffSide{Subject: "orders-value", Version: 3}, str: "registry:orders-value@3"},
		{arg: "registry:a@b@2", want: project.DiffSide{Subject: "a@b", Version: 2}, str: "registry:a@b@2"},
		{arg: "registry:orders-value@0", wantErr: `version "0" is not a number ≥ 1 or latest`},
		{arg: "registry:", wantErr: "want registry:SUBJECT or registry:SUBJECT@VERSION"},
	} {
		got, err := project.ParseDiffSide(tc.arg)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseDiffSide(%q) error = %v, want %q", tc.arg, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != tc.str {
			t.Errorf("ParseDiffSide(%q) = %+v (%s), %v; want %+v (%s)", tc.arg, got, got, err, tc.want, tc.str)
		}
	}
}

// TestDiffRegistry compares registered versions (references resolved in
// the registry) with each other and with the sample's files.
func TestDiffRegistry(t *testing.T) {
	t.Parallel()
	c, _ := newRegistry(t)
	base, head := "testdata/sample/base/", "testdata/sample/head/"
	register(t, c, "customer-value", client.NewSchema{Text: readFile(t, base+"schemas/avro/customer.avsc")})
	ref := []client.Reference{{Name: "acme.sales.Customer", Subject: "customer-value", Version: 1}}
	register(t, c, "orders-value", client.NewSchema{Text: readFile(t, base+"schemas/avro/orders.avsc"), References: ref})
	ctx := context.Background()
	side := func(s string) project.DiffSide {
		d, err := project.ParseDiffSide(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	// Registry version against the head file: the same findings as
	// the two files.
	fromFiles, err := project.DiffFiles(ctx, base+"schemas/avro/orders.avsc", head+"schemas/avro/orders.avsc", project.DiffOptions{Level: compat.Backward})
	if err != nil {
		t.Fatal(err)
	}
	res, err := project.Diff(ctx, c, side("registry:orders-value"), side(head+"schemas/avro/orders.avsc"), project.DiffOptions{Level: compat.Backward})
	if err != nil {
		t.Fatal(err)
	}
	if res.Against != "registry:orders-value@1" || res.Subjects[0].Subject != "orders-value" || !res.Failed() {
		t.Errorf("registry vs file: against %q, subjects %+v, failed %t", res.Against, res.Subjects, res.Failed())
	}
	if len(res.Findings) != len(fromFiles.Findings) || len(res.Findings) == 0 {
		t.Fatalf("registry vs file: %d findings, file vs file %d", len(res.Findings), len(fromFiles.Findings))
	}
	for i, f := range res.Findings {
		g := fromFiles.Findings[i]
		if f.RuleID != g.RuleID || f.Path != g.Path || f.Line != g.Line || f.Version != 1 {
			t.Errorf("finding %d: %+v, want %+v against version 1", i, f, g)
		}
	}

	// Two registry versions: the second is the same schema, unchanged.
	res, err = project.Diff(ctx, c, side("registry:orders-value@1"), side("registry:orders-value@latest"), project.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Subjects[0].Status != project.StatusUnchanged || res.Subjects[0].File != "" || len(res.Findings) != 0 {
		t.Errorf("version vs itself: %+v, %v", res.Subjects, res.Findings)
	}

	// A file side may take its references from the registry.
	res, err = project.Diff(ctx, c, side("registry:orders-value"), side(base+"schemas/avro/orders.avsc"),
		project.DiffOptions{References: ref})
	if err != nil || len(res.Findings) != 0 || res.Subjects[0].Status != project.StatusUnchanged {
		t.Errorf("registry vs same file with --ref: %+v, %v", res, err)
	}

	if _, err := project.Diff(ctx, nil, side("registry:orders-value"), side(head+"schemas/avro/orders.avsc"), project.DiffOptions{}); err == nil ||
		!strings.Contains(err.Error(), "registry:orders-value@latest needs a registry") {
		t.Errorf("registry side without a registry: err = %v", err)
	}
	if _, err := project.Diff(ctx, c, side("registry:nope@2"), side(head+"schemas/avro/orders.avsc"), project.DiffOptions{}); err == nil ||
		!strings.Contains(err.Error(), `subject "nope"`) {
		t.Errorf("unknown subject: err = %v", err)
	}
}
