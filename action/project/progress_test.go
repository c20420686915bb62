package project_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/action/project"
)

// TestCheckProgress: Options.Progress hears the total first, then every
// subject once, in increasing order, and the last call is the total.
func TestCheckProgress(t *testing.T) {
	t.Parallel()
	p := mustFind(t, "testdata/sample/head")
	var calls []string
	res, err := project.Check(context.Background(), p, project.Options{
		Baseline: project.DirBaseline("../base"),
		Progress: func(done, total int) { calls = append(calls, fmt.Sprintf("%d/%d", done, total)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	// The sample has 7 subjects; one file names none (it is counted in
	// Subjects as invalid but never judged).
	judged := 0
	for _, s := range res.Subjects {
		if s.Subject != "" {
			judged++
		}
	}
	if len(calls) != judged+1 {
		t.Fatalf("calls %v, want %d", calls, judged+1)
	}
	for i, c := range calls {
		if want := fmt.Sprintf("%d/%d", i, judged); c != want {
			t.Errorf("call %d = %s, want %s", i, c, want)
		}
	}
}
