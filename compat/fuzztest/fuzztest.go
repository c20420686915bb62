// Package fuzztest holds what Charter's fuzz targets share: the bound on
// the work one input may take, and the encoding of Go's fuzz corpus files.
//
// Every parser and request body has a native fuzz target (func FuzzXxx)
// beside its code; .ci/fuzz runs each for a bounded time. A target fails
// on a panic, on a wrong answer (a 5xx from the REST API, an error that is
// not one line, a canonical form that does not parse back) and, through
// [Bound], on an input that takes more than [CPUPerMB] of CPU per
// megabyte: parsing and answering must stay linear (or bounded) in the
// input.
package fuzztest

import (
	"fmt"
	"testing"
	"time"
)

// CPUPerMB is the CPU time one megabyte of input may take.
const CPUPerMB = time.Second

// Floor is the least CPU time any input may take, so that a small input is
// not judged on noise: a garbage-collection cycle, a lazily built table, a
// cold cache, the fuzzer's coverage instrumentation.
const Floor = 250 * time.Millisecond

// Budget is the CPU time an input of n bytes may take: CPUPerMB per
// megabyte, and at least Floor.
func Budget(n int) time.Duration {
	b := time.Duration(float64(CPUPerMB) * float64(n) / (1 << 20))
	return max(b, Floor)
}

// Bound runs work and fails tb when it took more CPU time than Budget(n),
// n being the size of the input in bytes. CPU time is the process's (every
// goroutine, the garbage collector included), which a busy machine does
// not inflate as it does wall time; where the process's CPU time cannot be
// read, wall time is measured instead. It returns the time measured.
func Bound(tb testing.TB, n int, work func()) time.Duration {
	tb.Helper()
	start := now()
	work()
	took := now() - start
	if b := Budget(n); took > b {
		tb.Errorf("an input of %d bytes took %v of %s, more than its budget of %v (%v per MB, at least %v)",
			n, took.Round(time.Millisecond), clockName, b.Round(time.Millisecond), CPUPerMB, Floor)
	}
	return took
}

// Corpus returns the text of a corpus file of Go's fuzzing engine ("go
// test fuzz v1") holding values, each a string, []byte, bool, an integer
// type or a float; it panics on any other type. The file goes in
// testdata/fuzz/FuzzXxx/ beside the target, whose arguments after the
// *testing.T have the types of values, in order.
func Corpus(values ...any) []byte {
	b := []byte("go test fuzz v1\n")
	for _, v := range values {
		switch v := v.(type) {
		case string:
			b = fmt.Appendf(b, "string(%q)\n", v)
		case []byte:
			b = fmt.Appendf(b, "[]byte(%q)\n", v)
		case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
			b = fmt.Appendf(b, "%T(%v)\n", v, v)
		default:
			panic(fmt.Sprintf("fuzztest.Corpus: unsupported type %T", v))
		}
	}
	return b
}
