package avro

import (
	"fmt"
	"strings"
	"testing"
)

// TestObjectIndex: past smallObject members an object's keys are found
// through its index; a repeated key keeps its first position and takes the
// last value either way (as Jackson's ObjectNode), and every key is found.
func TestObjectIndex(t *testing.T) {
	for _, n := range []int{smallObject - 1, smallObject, smallObject + 1, 3 * smallObject} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var parts []string
			for i := range n {
				parts = append(parts, fmt.Sprintf(`"k%d":%d`, i, i))
			}
			// Every key again, with a new value, and k0 a third time.
			for i := range n {
				parts = append(parts, fmt.Sprintf(`"k%d":%d`, i, 100+i))
			}
			parts = append(parts, `"k0":"last"`)
			v, err := parseJSON("{" + strings.Join(parts, ",") + "}")
			if err != nil {
				t.Fatal(err)
			}
			if len(v.obj) != n {
				t.Fatalf("%d members, want %d", len(v.obj), n)
			}
			for i, m := range v.obj {
				if want := fmt.Sprintf("k%d", i); m.key != want {
					t.Errorf("member %d is %q, want %q (first position kept)", i, m.key, want)
				}
				want := fmt.Sprint(100 + i)
				if i == 0 {
					want = "last"
				}
				if got := v.get(m.key); got == nil || got.s != want {
					t.Errorf("get(%q) = %v, want %s", m.key, got, want)
				}
			}
			if v.get("absent") != nil {
				t.Error(`get("absent") found a member`)
			}
		})
	}
}
