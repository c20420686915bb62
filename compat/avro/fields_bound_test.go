package avro_test

import (
	"fmt"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

// TestFieldsBoundedForSharedRecords: records D0…Dn where each D(i) uses
// D(i-1) three times reach D0 through 3^n paths. Fields lists each record
// at most MaxRecordEntries times, so the list stays bounded however deep
// the chain, and every record's fields are still listed.
func TestFieldsBoundedForSharedRecords(t *testing.T) {
	for _, n := range []int{4, 12, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s, err := avro.Format{}.Parse(avroCxChain(n, false), nil)
			if err != nil {
				t.Fatal(err)
			}
			fields := compat.Fields(s)
			// Each record D1…Dn has 3 fields, D0 one; at most
			// MaxRecordEntries entries per record.
			limit := (3*n + 1) * avro.MaxRecordEntries
			if len(fields) > limit {
				t.Fatalf("%d fields listed, want at most %d", len(fields), limit)
			}
			names := map[string]bool{}
			for _, f := range fields {
				names[f.FullName] = true
			}
			for i := 1; i <= n; i++ {
				for _, c := range []string{"a", "b", "c"} {
					if !names[fmt.Sprintf("D%d.%s", i, c)] {
						t.Errorf("field D%d.%s not listed", i, c)
					}
				}
			}
			if !names["D0.x"] {
				t.Error("field D0.x not listed")
			}
			if n == 4 && len(fields) != 3+9+27+81+81 {
				// Below the bound every path is listed: 3+9+27+81 record
				// fields and 81 paths to D0.x.
				t.Errorf("n=4: %d fields, want %d", len(fields), 3+9+27+81+81)
			}
		})
	}
}
