// Package evidence reads real events across a schema change. From a writer
// schema it generates events deterministically (seeded) that cover the
// schema's shape: every union branch and oneof member, every enum symbol,
// nulls and unset fields, empty, short and long arrays and maps, boundary
// numbers, non-ASCII strings and, where the format lets a writer send them,
// invalid UTF-8 strings, and strings that match the writer's patterns and
// formats. It encodes each event with the writer, reads it with the reader,
// and classifies what the reader did:
//
//   - [Equal]: every value the reader keeps is the value written;
//   - [Defaulted]: the reader filled a value the writer did not send with
//     its default (an Avro field default or enum default, a Protobuf field
//     the writer lacks);
//   - [Lossy]: the reader read the event but lost something: a value
//     dropped (an enum number a closed enum does not know, a field of
//     another wire type), a repetition truncated (repeated read as
//     singular), a meaning changed (a number that does not survive a
//     promotion, a decimal read with another scale, a string that is not
//     UTF-8);
//   - [Refused]: the reader rejected the event (no resolution, a
//     decoding error, a document its schema does not validate).
//
// Fields the writer sends and the reader does not declare are projected
// away, as every reader does on purpose; that is not a loss (except the
// member a writer set of a oneof whose other members the reader keeps:
// the reader's oneof reads as unset).
//
// Per format: Avro encodes with hamba/avro and reads with hamba's schema
// resolution (per event, so that an event that uses only readable union
// branches and enum symbols is read, as the specification resolves
// datum by datum; a writer recursive through unions is unrolled to each
// event, one recursive through an array or a map is not read); Protobuf
// builds dynamicpb messages of the writer's
// descriptors, marshals them and unmarshals the wire bytes with the
// reader's descriptors (so proto3 UTF-8 validation and proto2 closed enums
// apply as in every conforming runtime); JSON Schema generates documents,
// keeps those valid under the writer and validates them under the reader
// with santhosh-tekuri/jsonschema.
//
// [Read] returns counts per class and, for each distinct breaking outcome
// (a class, a path and what the reader did), one minimal counterexample
// event as JSON: the generator shrinks the first event that shows it until
// no choice can be undone without losing it. Work is bounded by
// [Options.Events] (at most [MaxEvents]) and by the context: an Avro
// schema resolution (hamba's, which cannot be stopped) whose estimated
// cost (its enums' writer × reader symbols) does not fit in a quarter of
// the time left is never started, the pair reported not read; one that
// outlasts the context anyway is abandoned. A pair that read no event
// says why ([Result.NotRead]) and is never called compatible.
// Avro events aim first at the writer's enum symbols the reader lacks.
//
// [Check] is the one entry point for a gate (charter diff, charter check
// --evidence, the registry's compatibility call, the web UI's compare
// page): the evidence of every pair a compatibility level compares (the
// time shared between them), and the findings of the evidence rules
// ([Rules]), which fire only on a loss an event proves.
// [Report.Counterexample] attributes to a finding only an outcome at its
// own path (or within or around it, [Attributable]), never another
// field's; [Report.Unexplained] lists the breaking outcomes no finding
// names.
package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
)

// Class is what a reader did with one event.
type Class uint8

// The classes, from harmless to breaking.
const (
	Equal Class = iota
	Defaulted
	Lossy
	Refused
)

var classNames = [...]string{"equal", "default", "loss", "refused"}

// String returns the class's name: equal, default, loss or refused.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// MarshalText encodes the class as its name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Breaking reports whether the class loses data or refuses the event.
func (c Class) Breaking() bool { return c >= Lossy }

// DefaultEvents is the number of events Read generates when
// Options.Events is 0.
const DefaultEvents = 100

// MaxEvents is the most events Read generates per pair: beyond it the
// time bound, not N, would decide how many are read (a gate refuses a
// larger N; Read reads MaxEvents).
const MaxEvents = 100_000

// CheckEvents returns an error, in one line naming the flag, when n is
// not a number of events a gate accepts (1 to MaxEvents).
func CheckEvents(flag string, n int) error {
	if n < 1 || n > MaxEvents {
		return fmt.Errorf("invalid %s %d: want a number of events from 1 to %d", flag, n, MaxEvents)
	}
	return nil
}

// Options bound and seed the work of Read. The zero value generates
// DefaultEvents events with seed 1.
type Options struct {
	// Events is the number of events to generate per pair; 0 means
	// DefaultEvents, and more than MaxEvents means MaxEvents.
	Events int
	// Seed seeds the generator; equal seeds give equal events. 0 means 1.
	Seed uint64
	// MaxOutcomes bounds the distinct breaking outcomes kept (each with
	// its counterexample); 0 means 16. Counts cover every event anyway.
	MaxOutcomes int
}

func (o Options) events() int {
	if o.Events <= 0 {
		return DefaultEvents
	}
	return min(o.Events, MaxEvents)
}

func (o Options) seed() uint64 {
	if o.Seed == 0 {
		return 1
	}
	return o.Seed
}

func (o Options) maxOutcomes() int {
	if o.MaxOutcomes <= 0 {
		return 16
	}
	return o.MaxOutcomes
}

// Outcome is one distinct breaking outcome with its minimal
// counterexample.
type Outcome struct {
	Class Class `json:"class"`
	// Path is where the outcome shows, in the writer's terms: the field
	// path of the format's violations (".a.b", "[]" for items; a
	// Protobuf path starts with the message name; a JSON pointer for
	// JSON Schema).
	Path string `json:"path"`
	// Kind names what happened: "refused", "dropped", "truncated",
	// "changed", "invalid-utf8".
	Kind string `json:"kind"`
	// Reader says in one sentence what the reader did.
	Reader string `json:"reader"`
	// RuleID is the evidence rule this outcome proves, "" when none of
	// the evidence rules describes it.
	RuleID string `json:"ruleId,omitempty"`
	// Event is the minimal counterexample, as the writer wrote it (JSON).
	Event json.RawMessage `json:"event"`
	// Read is what the reader made of it (JSON), absent when it refused.
	Read json.RawMessage `json:"read,omitempty"`
}

// Result is the evidence of one reader/writer pair.
type Result struct {
	// Events is how many events were generated, encoded and read.
	Events int `json:"events"`
	// Counts per class (an event's class is the worst thing the reader
	// did with any of its values).
	Equal     int `json:"equal"`
	Defaulted int `json:"defaulted"`
	Lossy     int `json:"lossy"`
	Refused   int `json:"refused"`
	// Outcomes are the distinct breaking outcomes, each with one minimal
	// counterexample, in the order first seen.
	Outcomes []Outcome `json:"outcomes,omitempty"`
	// Partial is true when the context ended before every event was read.
	Partial bool `json:"partial,omitempty"`
	// NotRead says why no event was read, "" when some were: the
	// generator could make no event valid for the writer
	// ([NoValidEvent]: a pattern it cannot satisfy, required objects
	// nested deeper than it goes), or the time bound ran out first
	// ([NoTimeLeft]). A pair without events proves nothing: never
	// report it compatible.
	NotRead string `json:"notRead,omitempty"`
}

// The reasons of Result.NotRead.
const (
	NoValidEvent = "no event valid for the writer could be generated"
	NoTimeLeft   = "the time bound ran out before any event was read"
)

// Verdict is the worst class of any event; Equal for no events.
func (r Result) Verdict() Class {
	switch {
	case r.Refused > 0:
		return Refused
	case r.Lossy > 0:
		return Lossy
	case r.Defaulted > 0:
		return Defaulted
	}
	return Equal
}

func (r *Result) count(c Class) {
	r.Events++
	switch c {
	case Equal:
		r.Equal++
	case Defaulted:
		r.Defaulted++
	case Lossy:
		r.Lossy++
	case Refused:
		r.Refused++
	}
}

// ErrUnsupported is returned by Read for a pair it cannot generate events
// for (schemas of two formats, a format without an evidence engine, a
// JSON Schema whose $refs leave the document).
var ErrUnsupported = errors.New("evidence: unsupported schema pair")

// Read generates events with writer, reads them with reader and
// classifies each. Both schemas come from the same format's Parse
// (compat/avro, compat/protobuf, compat/jsonschema). When ctx ends it
// returns what it has, with Partial set, and no error.
func Read(ctx context.Context, reader, writer compat.Schema, opts Options) (Result, error) {
	var e engine
	var err error
	switch w := writer.(type) {
	case *avro.Schema:
		r, ok := reader.(*avro.Schema)
		if !ok {
			return Result{}, fmt.Errorf("%w: %s writer, %s reader", ErrUnsupported, writer.Type(), reader.Type())
		}
		e, err = newAvroEngine(ctx, r, w)
	case *protobuf.Schema:
		r, ok := reader.(*protobuf.Schema)
		if !ok {
			return Result{}, fmt.Errorf("%w: %s writer, %s reader", ErrUnsupported, writer.Type(), reader.Type())
		}
		e, err = newProtoEngine(r, w)
	case *jsonschema.Schema:
		r, ok := reader.(*jsonschema.Schema)
		if !ok {
			return Result{}, fmt.Errorf("%w: %s writer, %s reader", ErrUnsupported, writer.Type(), reader.Type())
		}
		e, err = newJSONEngine(r, w)
	default:
		return Result{}, fmt.Errorf("%w: %T", ErrUnsupported, writer)
	}
	var tl *tooLargeError
	if errors.As(err, &tl) {
		return Result{NotRead: tl.reason}, nil
	}
	if err != nil {
		return Result{}, err
	}
	return run(ctx, e, opts), nil
}

// engine is one format's generator and reader for one pair.
type engine interface {
	// roots is how many independent roots events are generated for
	// (Protobuf messages; 1 elsewhere).
	roots() int
	// event generates the event of root r with the choices of ch, reads
	// it and reports what happened; ok is false when the generator
	// could not make an event the writer accepts with these choices.
	event(r int, ch *chooser) (ev *observed, ok bool)
}

// observed is what reading one event showed.
type observed struct {
	finds []find
	// event and read render the event as written and as read (JSON),
	// called only for counterexamples.
	event func() json.RawMessage
	read  func() json.RawMessage
}

// find is one thing the reader did at one path.
type find struct {
	class  Class
	path   string
	kind   string
	reader string
	ruleID string
}

func (o *observed) add(c Class, path, kind, reader, ruleID string) {
	o.finds = append(o.finds, find{c, path, kind, reader, ruleID})
}

func (o *observed) class() Class {
	c := Equal
	for _, f := range o.finds {
		c = max(c, f.class)
	}
	return c
}

type outcomeKey struct {
	class      Class
	path, kind string
}

func run(ctx context.Context, e engine, opts Options) Result {
	res := generate(ctx, e, opts)
	if res.Events == 0 {
		res.NotRead = NoValidEvent
		if res.Partial {
			res.NotRead = NoTimeLeft
		}
	}
	return res
}

func generate(ctx context.Context, e engine, opts Options) Result {
	var res Result
	n := opts.events()
	seen := map[outcomeKey]int{}
	roots := e.roots()
	if roots == 0 {
		return res
	}
	done := ctx.Done()
	failures := 0
	for i := 0; res.Events < n && failures <= 4*n; i++ {
		if done != nil && i%8 == 0 {
			select {
			case <-done:
				res.Partial = true
				return res
			default:
			}
		}
		root := i % roots
		ch := newChooser(opts.seed(), i/roots)
		ev, ok := e.event(root, ch)
		if !ok {
			failures++
			continue
		}
		res.count(ev.class())
		for _, f := range ev.finds {
			if !f.class.Breaking() {
				continue
			}
			k := outcomeKey{f.class, f.path, f.kind}
			if _, ok := seen[k]; ok || len(res.Outcomes) >= opts.maxOutcomes() {
				continue
			}
			seen[k] = len(res.Outcomes)
			min := shrink(ctx, e, root, ch, k, ev)
			o := Outcome{Class: f.class, Path: f.path, Kind: f.kind, Reader: f.reader, RuleID: f.ruleID, Event: min.event()}
			for _, mf := range min.finds {
				if (outcomeKey{mf.class, mf.path, mf.kind}) == k {
					o.Reader, o.RuleID = mf.reader, mf.ruleID
				}
			}
			if f.class != Refused && min.read != nil {
				o.Read = min.read()
			}
			res.Outcomes = append(res.Outcomes, o)
		}
	}
	if res.Events < n && ctx.Err() != nil {
		// The last events failed because the time bound ended work
		// inside them (an abandoned resolution).
		res.Partial = true
	}
	return res
}

// shrink undoes the choices of ch one at a time (outermost first),
// replacing each with the smallest option that still shows outcome k,
// and returns the observation of the smallest event found. It tries at
// most maxShrinkTrials events, so that it stays deterministic and cheap.
func shrink(ctx context.Context, e engine, root int, ch *chooser, k outcomeKey, ev *observed) *observed {
	fixed := ch.taken()
	keys := make([]string, 0, len(fixed))
	for key := range fixed {
		keys = append(keys, key)
	}
	// Paths sort parents before their children, and undoing a parent
	// drops its children's choices.
	sort.Strings(keys)
	best := ev
	trials := 0
	// First keep only the choices on the outcome's path (its
	// ancestors and descendants): one trial that, for most outcomes,
	// leaves a handful of choices to undo one by one.
	if len(keys) > 1 {
		near := map[string]int{}
		for key, v := range fixed {
			if related(key, k.path) {
				near[key] = v
			}
		}
		if len(near) < len(fixed) {
			trials++
			tc := fixedChooser(near)
			if got, ok := e.event(root, tc); ok && shows(got, k) {
				fixed, best = tc.taken(), got
				keys = keys[:0]
				for key := range fixed {
					keys = append(keys, key)
				}
				sort.Strings(keys)
			}
		}
	}
	for _, key := range keys {
		cur, ok := fixed[key]
		if !ok {
			continue
		}
		for alt := 0; alt < cur && trials < maxShrinkTrials && ctx.Err() == nil; alt++ {
			trials++
			trial := copyChoices(fixed)
			if alt == 0 {
				delete(trial, key)
			} else {
				trial[key] = alt
			}
			tc := fixedChooser(trial)
			got, ok := e.event(root, tc)
			if !ok || !shows(got, k) {
				continue
			}
			fixed, best = tc.taken(), got
			break
		}
	}
	return best
}

const maxShrinkTrials = 200

var indexRE = regexp.MustCompile(`\[\d+\]|\{\d+\}`)

// related reports whether choice key lies on outcome path p: the key
// without its indices and marks is a prefix of p or p of it. Paths of
// different syntax (a JSON pointer) relate to nothing, and shrinking
// then undoes choices one by one.
func related(key, p string) bool {
	k := indexRE.ReplaceAllStringFunc(key, func(m string) string {
		if m[0] == '[' {
			return "[]"
		}
		return "{}"
	})
	k = strings.TrimRight(k, "#|?~+:=")
	p = strings.TrimSuffix(p, ".")
	return strings.HasPrefix(p, k) || strings.HasPrefix(k, p)
}

func shows(o *observed, k outcomeKey) bool {
	for _, f := range o.finds {
		if (outcomeKey{f.class, f.path, f.kind}) == k {
			return true
		}
	}
	return false
}

// chooser makes the generator's choices. Each choice point has a stable
// key (its path in the event and what is chosen there) and a number of
// options, option 0 being the smallest value (null, unset, empty, zero).
// Event 0 takes option 0 everywhere; an odd event i takes option
// (i/2 + h(key)) mod n at each point, h being a seeded hash, so that
// within 2n events every option of every point is taken; an even event
// takes a seeded hash of the key and i, so that points with as many
// options do not always move together. Each event mixes options of many
// points, and events differ between seeds. A chooser made by
// fixedChooser takes given options (the shrinker's).
type chooser struct {
	seed  uint64
	i     int
	fixed map[string]int
	took  map[string]int
	// budget bounds the values one event holds, so that recursive
	// types and long repetitions stay small.
	budget int
}

const eventBudget = 4000

func newChooser(seed uint64, i int) *chooser {
	return &chooser{seed: seed, i: i, took: map[string]int{}, budget: eventBudget}
}

func fixedChooser(m map[string]int) *chooser {
	return &chooser{fixed: m, took: map[string]int{}, budget: eventBudget}
}

// pick returns the option taken at point key among n (n ≥ 1).
func (c *chooser) pick(key string, n int) int {
	c.budget--
	if n <= 1 || c.budget <= 0 {
		return 0
	}
	var o int
	switch {
	case c.fixed != nil:
		o = c.fixed[key]
		if o >= n {
			o = n - 1
		}
	case c.i == 0:
		o = 0
	default:
		// FNV-1a of the seed's 8 bytes and the key (hash/fnv's, without
		// its allocation: this runs at every choice of every event).
		h := uint64(fnvOffset)
		for j := range 8 {
			h = (h ^ uint64(byte(c.seed>>(8*j)))) * fnvPrime
		}
		for j := 0; j < len(key); j++ {
			h = (h ^ uint64(key[j])) * fnvPrime
		}
		if c.i%2 == 1 {
			// Odd events cycle: within 2n events every option of
			// every point is taken.
			o = int((uint64(c.i/2) + mix(h)%uint64(n)) % uint64(n))
		} else {
			// Even events draw: points with as many options do
			// not move in step.
			for j := range 8 {
				h = (h ^ uint64(byte(uint64(c.i)>>(8*j)))) * fnvPrime
			}
			o = int(mix(h) % uint64(n))
		}
	}
	if o != 0 {
		c.took[key] = o
	}
	return o
}

// prefer is pick for a point where some options are the change under
// test (the writer's enum symbols the reader lacks): every fourth event
// from the third (i ≡ 2 mod 4) takes one of preferred in turn, so that
// N events reach them even among thousands of options; other events,
// and a fixed chooser (the shrinker's), pick as usual.
func (c *chooser) prefer(key string, n int, preferred []int) int {
	if len(preferred) == 0 || c.fixed != nil || c.i%4 != 2 || c.budget <= 1 || n <= 1 {
		return c.pick(key, n)
	}
	c.budget--
	o := preferred[(c.i/4)%len(preferred)]
	if o != 0 {
		c.took[key] = o
	}
	return o
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mix is splitmix64's finalizer: FNV-1a's low bits depend on the low
// bits of the input bytes alone, so they are mixed before taking a
// remainder.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// low reports whether the event's budget is nearly spent: generators then
// take option 0 at repetitions and recursive branches.
func (c *chooser) low() bool { return c.budget < eventBudget/4 }

func (c *chooser) taken() map[string]int { return copyChoices(c.took) }

func copyChoices(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
