package upcast_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/upcast"
)

// FuzzChain builds chains from random step graphs over versions that are
// pairwise incompatible (each pins "at" to its own number), so only the
// registered steps connect them. It checks the chain against a model:
// Build fails exactly for the versions the model cannot connect to the
// target, and every other version is upcast along a shortest path of
// registered steps, each moving towards the target.
func FuzzChain(f *testing.F) {
	f.Add([]byte{1, 2, 1, 2, 2, 3})             // 3 versions, target 3, v1→v2→v3
	f.Add([]byte{2, 0, 4, 3, 3, 2, 2, 1, 1, 0}) // 4 versions, target 1, downcasters
	f.Add([]byte{3, 2, 0, 1, 1, 2, 0, 2, 2, 3, 4, 3})
	f.Add([]byte{0, 0})
	f.Add([]byte{4, 5, 0, 5, 1, 5, 2, 5, 3, 5, 4, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 64 {
			return
		}
		n := 2 + int(data[0])%5
		target := 1 + int(data[1])%n
		var texts []string
		for v := 1; v <= n; v++ {
			texts = append(texts, fmt.Sprintf(`{"type":"object","properties":{"at":{"const":%d},"trail":{"type":"array","items":{"type":"string"}}},"required":["at","trail"]}`, v))
		}
		src := staticSource(t, "s", compat.JSON, texts...)
		steps := upcast.NewSteps()
		edges := map[[2]int]bool{}
		for i := 2; i+1 < len(data); i += 2 {
			from, to := 1+int(data[i])%n, 1+int(data[i+1])%n
			if from == to || edges[[2]int{from, to}] {
				continue
			}
			edges[[2]int{from, to}] = true
			name := fmt.Sprintf("%d>%d", from, to)
			steps.MustRegister("s", from, to, name, func(v map[string]any) (map[string]any, error) {
				if v["at"] != float64(from) {
					return nil, fmt.Errorf("step %s got a value at %v", name, v["at"])
				}
				v["at"] = float64(to)
				v["trail"] = append(v["trail"].([]any), name)
				return v, nil
			})
		}
		// The model: shortest number of steps from each version to the
		// target, moving towards it only.
		dist := func(w int) int {
			d := map[int]int{w: 0}
			queue := []int{w}
			for len(queue) > 0 {
				a := queue[0]
				queue = queue[1:]
				for e := range edges {
					b := e[1]
					toward := (w < target && e[0] == a && a < b && b <= target) || (w > target && e[0] == a && a > b && b >= target)
					if _, seen := d[b]; toward && !seen {
						d[b] = d[a] + 1
						queue = append(queue, b)
					}
				}
			}
			if got, ok := d[target]; ok {
				return got
			}
			return -1
		}
		var unreachable []int
		for v := 1; v <= n; v++ {
			if dist(v) < 0 {
				unreachable = append(unreachable, v)
			}
		}
		u, err := upcast.New(upcast.WithSource(src), upcast.WithSteps(steps), upcast.WithTarget("s", target))
		if err != nil {
			t.Fatal(err)
		}
		err = u.Build(t.Context(), "s")
		if len(unreachable) > 0 {
			var gap *upcast.GapError
			if !errors.As(err, &gap) {
				t.Fatalf("Build: err = %v, want gaps for %v", err, unreachable)
			}
			var from []int
			for _, g := range gap.Gaps {
				from = append(from, g.From)
			}
			if !slices.Equal(from, unreachable) {
				t.Fatalf("gaps for %v, want %v", from, unreachable)
			}
			return
		}
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		for w := 1; w <= n; w++ {
			r, err := u.UpcastValue(t.Context(), "s", w, "e", map[string]any{"at": float64(w), "trail": []any{}})
			if err != nil {
				t.Fatalf("upcast v%d: %v", w, err)
			}
			v, _ := r.Value()
			trail := v["trail"].([]any)
			if v["at"] != float64(target) || len(trail) != dist(w) || len(r.Steps) != dist(w) {
				t.Fatalf("v%d → %v via %v (%d steps), want v%d in %d steps", w, v["at"], trail, len(r.Steps), target, dist(w))
			}
			at := w
			for i, s := range r.Steps {
				if s.From != at || !edges[[2]int{s.From, s.To}] || fmt.Sprint(trail[i]) != fmt.Sprintf("%d>%d", s.From, s.To) {
					t.Fatalf("v%d: step %d is %v after v%d (trail %v)", w, i, s, at, trail)
				}
				at = s.To
			}
		}
	})
}
