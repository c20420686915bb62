package fuzztest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat/fuzztest"
)

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{
		{0, fuzztest.Floor},
		{1 << 10, fuzztest.Floor},
		{1 << 20, time.Second},
		{4 << 20, 4 * time.Second},
	} {
		if got := fuzztest.Budget(tc.n); got != tc.want {
			t.Errorf("Budget(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestCorpus: a file Corpus writes is one that Go's fuzzing engine reads
// (FuzzCorpusFile runs it as its seed).
func TestCorpus(t *testing.T) {
	got := string(fuzztest.Corpus("a\"\n", []byte{0, 'x'}, uint8(7), true, int64(-3)))
	want := "go test fuzz v1\nstring(\"a\\\"\\n\")\n[]byte(\"\\x00x\")\nuint8(7)\nbool(true)\nint64(-3)\n"
	if got != want {
		t.Errorf("Corpus =\n%s\nwant\n%s", got, want)
	}
	committed, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzCorpusFile", "example"))
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != got {
		t.Errorf("testdata/fuzz/FuzzCorpusFile/example is not what Corpus writes:\n%s", committed)
	}
}

// FuzzCorpusFile reads testdata/fuzz/FuzzCorpusFile/example, written by
// Corpus: Go's fuzzing engine fails the target on a file it cannot read.
func FuzzCorpusFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, b []byte, u uint8, ok bool, i int64) {})
}
