package upcast

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
)

// Chain upcasts the events of one subject to its target version. Every
// version the source holds has a compiled plan (the path of steps from it
// to the target, found when the chain was built), so a gap fails the
// build, not an event. A Chain is safe for concurrent use.
type Chain struct {
	u       *Upcaster
	subject string
	spec    target
	steps   map[[2]int]goStep

	state     atomic.Pointer[chainState]
	refreshMu sync.Mutex
	unknownMu sync.Mutex
	unknown   map[int64]time.Time // IDs found not to be versions of the subject, and when
}

// chainState is one immutable build of a chain.
type chainState struct {
	built    time.Time
	target   *version
	order    []int // version numbers, ascending
	versions map[int]*version
	byID     map[int64]*version
	plans    map[int]*plan
}

// plan is the compiled path from one writer version to the target.
type plan struct {
	from, to *version
	// decodeAs is the version whose shape payloads are decoded into:
	// from itself, or the end of the leading run of implicit steps,
	// reached by schema resolution while decoding.
	decodeAs *version
	decode   decodeFunc
	// resolve brings a decoded value of from to decodeAs (UpcastValue).
	resolve  convertFunc
	resolved *StepInfo // the implicit step done while decoding, if any
	steps    []compiledStep
	infos    []StepInfo // every step, the decoding resolution included
}

type compiledStep struct {
	info     StepInfo
	from, to *version
	run      func(map[string]any) (map[string]any, error)
}

// edge is one candidate step while searching a path.
type edge struct {
	from, to int
	kind     StepKind
	name     string
	rules    *ruleStep
	fn       Func
}

func newChain(ctx context.Context, u *Upcaster, subject string) (*Chain, error) {
	c := &Chain{u: u, subject: subject, spec: u.opts.targets[subject], steps: u.opts.steps.snapshot(subject), unknown: map[int64]time.Time{}}
	st, err := c.build(ctx)
	if err != nil {
		return nil, err
	}
	c.state.Store(st)
	return c, nil
}

// Subject returns the chain's subject.
func (c *Chain) Subject() string { return c.subject }

// Target returns the target version.
func (c *Chain) Target() int { return c.state.Load().target.num }

// Versions returns the versions the chain knows, ascending.
func (c *Chain) Versions() []int { return slices.Clone(c.state.Load().order) }

// Path returns the steps that take version from to the target (nil for
// the target itself). Error: from is not a version of the subject.
func (c *Chain) Path(from int) ([]StepInfo, error) {
	p, ok := c.state.Load().plans[from]
	if !ok {
		return nil, fmt.Errorf("%w: %s has no version %d", ErrUnknownVersion, c.subject, from)
	}
	return slices.Clone(p.infos), nil
}

// build reads every version of the subject and compiles a plan for each.
func (c *Chain) build(ctx context.Context) (*chainState, error) {
	o := &c.u.opts
	nums, err := o.src.Versions(ctx, c.subject)
	if err != nil {
		return nil, fmt.Errorf("build chain of %s: %w", c.subject, err)
	}
	if len(nums) == 0 {
		return nil, fmt.Errorf("build chain of %s: the subject has no versions", c.subject)
	}
	st := &chainState{built: o.now(), versions: map[int]*version{}, byID: map[int64]*version{}, plans: map[int]*plan{}}
	var codecType compat.SchemaType
	for _, n := range nums {
		ss, err := o.src.Version(ctx, c.subject, n)
		if err != nil {
			return nil, fmt.Errorf("build chain of %s: %w", c.subject, err)
		}
		v, err := c.parse(ctx, ss)
		if err != nil {
			return nil, fmt.Errorf("build chain of %s: %w", c.subject, err)
		}
		if codecType != "" && v.typ != codecType {
			return nil, fmt.Errorf("build chain of %s: v%d is %s but earlier versions are %s; upcast needs one format per subject", c.subject, n, v.typ, codecType)
		}
		codecType = v.typ
		st.versions[n] = v
		st.order = append(st.order, n)
		if prev, dup := st.byID[v.id]; !dup || prev.deleted {
			st.byID[v.id] = v // a schema re-registered after a soft delete: the live version wins
		}
	}
	sort.Ints(st.order)
	if st.target, err = c.pickTarget(st); err != nil {
		return nil, fmt.Errorf("build chain of %s: %w", c.subject, err)
	}
	for k := range c.steps {
		for _, n := range k {
			if st.versions[n] == nil {
				// Steps are often deployed before their version is
				// registered; if a version needs one, the gap check says so.
				o.log.Debug("upcast: step names a version the subject does not have yet", "subject", c.subject, "step", fmt.Sprintf("v%d→v%d", k[0], k[1]), "version", n)
			}
		}
	}
	b := &builder{c: c, st: st, compat: map[[2]int][]compat.Violation{}, rules: map[[2]int]*ruleStep{}}
	if err := b.compileRules(); err != nil {
		return nil, fmt.Errorf("build chain of %s: %w", c.subject, err)
	}
	gaps := &GapError{Subject: c.subject, Target: st.target.num}
	for _, n := range st.order {
		p, gap, err := b.plan(n)
		if err != nil {
			return nil, fmt.Errorf("build chain of %s: %w", c.subject, err)
		}
		if gap != nil {
			gaps.Gaps = append(gaps.Gaps, *gap)
			continue
		}
		st.plans[n] = p
		st.versions[n].plan = p
	}
	if len(gaps.Gaps) > 0 {
		return nil, gaps
	}
	return st, nil
}

// parse parses one version with its references.
func (c *Chain) parse(ctx context.Context, ss client.SubjectSchema) (*version, error) {
	o := &c.u.opts
	f, ok := o.formats[ss.Type]
	if !ok {
		return nil, fmt.Errorf("v%d: schema type %q is not supported", ss.Version, ss.Type)
	}
	deps, err := resolveRefs(ctx, o.src, ss.References, map[string]bool{}, nil)
	if err != nil {
		return nil, fmt.Errorf("v%d: %w", ss.Version, err)
	}
	s, err := f.Parse(ss.Text, deps)
	if err != nil {
		return nil, fmt.Errorf("v%d: parse schema: %w", ss.Version, err)
	}
	v := &version{subject: c.subject, num: ss.Version, id: ss.ID, typ: ss.Type, schema: s, deps: deps,
		deleted: ss.Deleted, meta: ss.Metadata, ruleSet: ss.RuleSet}
	switch ss.Type {
	case compat.Avro:
		v.codec = avroCodec{}
	case compat.JSON:
		v.codec = jsonCodec{}
	case compat.Protobuf:
		v.codec = protoCodec{}
	}
	if err := v.codec.prepare(v, o); err != nil {
		return nil, err
	}
	return v, nil
}

// maxRefDepth bounds reference chains (and cycles).
const maxRefDepth = 32

// resolveRefs fetches references recursively, dependencies first.
func resolveRefs(ctx context.Context, src Source, refs []client.Reference, seen map[string]bool, out []compat.Dependency) ([]compat.Dependency, error) {
	if len(seen) > maxRefDepth*8 {
		return nil, errors.New("too many references")
	}
	for _, r := range refs {
		if seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		ss, err := src.Version(ctx, r.Subject, r.Version)
		if err != nil {
			return nil, fmt.Errorf("reference %q (%s v%d): %w", r.Name, r.Subject, r.Version, err)
		}
		if out, err = resolveRefs(ctx, src, ss.References, seen, out); err != nil {
			return nil, err
		}
		out = append(out, compat.Dependency{Name: r.Name, Text: ss.Text})
	}
	return out, nil
}

// pickTarget chooses the target version: the one set with WithTarget,
// the latest with a metadata property, or the latest live version.
func (c *Chain) pickTarget(st *chainState) (*version, error) {
	spec := c.spec
	switch {
	case spec.version > 0:
		v := st.versions[spec.version]
		if v == nil {
			return nil, fmt.Errorf("target v%d is not a version of the subject (versions %v)", spec.version, st.order)
		}
		return v, nil
	case spec.key != "":
		for i := len(st.order) - 1; i >= 0; i-- {
			v := st.versions[st.order[i]]
			if !v.deleted && v.meta != nil && v.meta.Properties[spec.key] == spec.value {
				return v, nil
			}
		}
		return nil, fmt.Errorf("no version has metadata property %s=%s", spec.key, spec.value)
	}
	for i := len(st.order) - 1; i >= 0; i-- {
		if v := st.versions[st.order[i]]; !v.deleted {
			return v, nil
		}
	}
	return st.versions[st.order[len(st.order)-1]], nil
}

// builder searches and compiles plans for one chain state.
type builder struct {
	c      *Chain
	st     *chainState
	compat map[[2]int][]compat.Violation // (reader, writer) → violations
	rules  map[[2]int]*ruleStep          // (from, to) of neighbours → rules
}

// compileRules compiles the migration rules of each neighbouring pair:
// UPGRADE rules of the newer version for older→newer, DOWNGRADE rules of
// the newer version for newer→older (Confluent: the rules live on the
// newer version of each step).
func (b *builder) compileRules() error {
	for i := 1; i < len(b.st.order); i++ {
		older, newer := b.st.order[i-1], b.st.order[i]
		rs := b.st.versions[newer].ruleSet
		up, err := compileRules(rs, modeUpgrade)
		if err != nil {
			return fmt.Errorf("v%d: %w", newer, err)
		}
		down, err := compileRules(rs, modeDowngrade)
		if err != nil {
			return fmt.Errorf("v%d: %w", newer, err)
		}
		if up != nil {
			b.rules[[2]int{older, newer}] = up
		}
		if down != nil {
			b.rules[[2]int{newer, older}] = down
		}
	}
	return nil
}

// violations returns why reader cannot read writer (nil: it can).
func (b *builder) violations(reader, writer int) []compat.Violation {
	k := [2]int{reader, writer}
	if v, ok := b.compat[k]; ok {
		return v
	}
	r, w := b.st.versions[reader], b.st.versions[writer]
	f := b.c.u.opts.formats[r.typ]
	res := compat.Check(f, compat.Backward, r.schema, []compat.Previous{{Version: writer, Schema: w.schema}})
	out := make([]compat.Violation, len(res.Findings))
	for i, fd := range res.Findings {
		out[i] = fd.Violation
	}
	if len(out) == 0 {
		out = nil
	}
	b.compat[k] = out
	return out
}

// neighbour returns the version after n towards the target (0: none).
func (b *builder) neighbour(n, dir int) int {
	i := slices.Index(b.st.order, n)
	j := i + dir
	if j < 0 || j >= len(b.st.order) {
		return 0
	}
	return b.st.order[j]
}

// edges lists the steps out of version a towards target t, preferred
// first: hand-written steps (longest jump first), then the neighbouring
// step: its migration rules if it has any, else resolution if compat
// allows it.
func (b *builder) edges(a, t, dir int) []edge {
	var out []edge
	for k, s := range b.c.steps {
		if k[0] != a {
			continue
		}
		if (dir > 0 && k[1] > a && k[1] <= t) || (dir < 0 && k[1] < a && k[1] >= t) {
			out = append(out, edge{from: a, to: k[1], kind: StepGo, name: s.name, fn: s.fn})
		}
	}
	sort.Slice(out, func(i, j int) bool { return abs(out[i].to-a) > abs(out[j].to-a) })
	n := b.neighbour(a, dir)
	if n == 0 || (dir > 0 && n > t) || (dir < 0 && n < t) {
		return out
	}
	if _, ok := b.c.steps[[2]int{a, n}]; ok {
		return out
	}
	if rs := b.rules[[2]int{a, n}]; rs != nil {
		return append(out, edge{from: a, to: n, kind: StepRule, name: rs.names(), rules: rs})
	}
	if b.violations(n, a) == nil {
		out = append(out, edge{from: a, to: n, kind: StepImplicit})
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// plan finds the shortest path from version w to the target and compiles
// it; a version with no path yields a Gap.
func (b *builder) plan(w int) (*plan, *Gap, error) {
	t := b.st.target.num
	from, to := b.st.versions[w], b.st.target
	if w == t {
		dec, err := from.codec.decoder(from, from)
		if err != nil {
			return nil, nil, err
		}
		return &plan{from: from, to: to, decodeAs: from, decode: dec}, nil, nil
	}
	dir := 1
	if w > t {
		dir = -1
	}
	// Breadth-first search: fewest steps; edges are tried in preference
	// order, so a hand-written step beats resolution of the same length.
	parent := map[int]edge{}
	seen := map[int]bool{w: true}
	queue := []int{w}
	for len(queue) > 0 && !seen[t] {
		a := queue[0]
		queue = queue[1:]
		for _, e := range b.edges(a, t, dir) {
			if b.st.versions[e.to] == nil {
				continue
			}
			if !seen[e.to] {
				seen[e.to] = true
				parent[e.to] = e
				queue = append(queue, e.to)
			}
		}
	}
	if !seen[t] {
		return nil, b.gap(w, t, dir, seen), nil
	}
	var path []edge
	for n := t; n != w; n = parent[n].from {
		path = append(path, parent[n])
	}
	slices.Reverse(path)
	path = b.mergeImplicit(path)
	p, err := b.compile(from, to, path)
	return p, nil, err
}

// gap explains why w cannot reach t: the furthest version it reaches and
// what stops the next step.
func (b *builder) gap(w, t, dir int, seen map[int]bool) *Gap {
	stuck := w
	for n := range seen {
		if (dir > 0 && n > stuck) || (dir < 0 && n < stuck) {
			stuck = n
		}
	}
	next := b.neighbour(stuck, dir)
	g := &Gap{From: w, Stuck: stuck, Next: next}
	mode, ruleOn := "UPGRADE", next
	if dir < 0 {
		mode, ruleOn = "DOWNGRADE", stuck
	}
	var vs []string
	for _, v := range b.violations(next, stuck) {
		vs = append(vs, v.String())
	}
	more := ""
	if len(vs) > 3 {
		more = fmt.Sprintf(" (and %d more)", len(vs)-3)
		vs = vs[:3]
	}
	g.Reason = fmt.Sprintf("no step registered, no %s migration rule on v%d, and v%d cannot read v%d: %s%s",
		mode, ruleOn, next, stuck, strings.Join(vs, "; "), more)
	return g
}

// mergeImplicit replaces each run of implicit steps a→…→z by one
// resolution a→z when z can read a directly, as a Confluent consumer
// resolves the writer schema against its reader schema in one go.
func (b *builder) mergeImplicit(path []edge) []edge {
	var out []edge
	for i := 0; i < len(path); {
		if path[i].kind != StepImplicit {
			out = append(out, path[i])
			i++
			continue
		}
		j := i
		for j+1 < len(path) && path[j+1].kind == StepImplicit {
			j++
		}
		run := path[i : j+1]
		start, end := run[0].from, run[len(run)-1].to
		if len(run) > 1 && b.violations(end, start) == nil {
			out = append(out, edge{from: start, to: end, kind: StepImplicit})
		} else {
			out = append(out, run...)
		}
		i = j + 1
	}
	return out
}

// compile turns a path into a plan: a leading implicit step becomes the
// decoder's resolution, the others compiled steps.
func (b *builder) compile(from, to *version, path []edge) (*plan, error) {
	p := &plan{from: from, to: to, decodeAs: from}
	cd := from.codec
	if len(path) > 0 && path[0].kind == StepImplicit {
		reader := b.st.versions[path[0].to]
		dec, err := cd.decoder(from, reader)
		if err != nil {
			return nil, err
		}
		res, err := cd.converter(from, reader)
		if err != nil {
			return nil, err
		}
		p.decodeAs, p.decode, p.resolve = reader, dec, res
		info := StepInfo{From: from.num, To: reader.num, Kind: StepImplicit, Name: cd.resolution()}
		p.resolved = &info
		p.infos = append(p.infos, info)
		path = path[1:]
	} else {
		dec, err := cd.decoder(from, from)
		if err != nil {
			return nil, err
		}
		p.decode = dec
	}
	for _, e := range path {
		sf, st := b.st.versions[e.from], b.st.versions[e.to]
		s := compiledStep{info: StepInfo{From: e.from, To: e.to, Kind: e.kind, Name: e.name}, from: sf, to: st}
		switch e.kind {
		case StepGo:
			s.run = e.fn
		case StepRule:
			rs := e.rules
			s.run = func(v map[string]any) (map[string]any, error) {
				out, err := rs.run(v)
				if err != nil {
					return nil, err
				}
				// The rule's output is re-read as its version, as Confluent's
				// serde re-encodes it with the reader schema.
				if st.typ == compat.JSON {
					return out, nil
				}
				out, err = st.codec.conform(out, st, true)
				if err != nil {
					return nil, fmt.Errorf("%w: %w", errRuleOutput, err)
				}
				return out, nil
			}
		case StepImplicit:
			conv, err := cd.converter(sf, st)
			if err != nil {
				return nil, err
			}
			s.info.Name = cd.resolution()
			s.run = conv
		}
		p.steps = append(p.steps, s)
		p.infos = append(p.infos, s.info)
	}
	return p, nil
}

// errRuleOutput marks a rule step whose output does not fit its version.
var errRuleOutput = errors.New("rule output does not fit the schema")

// upcast runs one event through its plan. payload is bare (the wire
// header, if any, already removed; framed says it was there).
func (c *Chain) upcast(ctx context.Context, ev *Event, payload []byte, framed bool, r *Result) error {
	st := c.state.Load()
	var w *version
	if ev.Version > 0 {
		w = st.versions[ev.Version]
	} else {
		w = st.byID[ev.SchemaID]
	}
	if w == nil {
		var err error
		if st, w, err = c.refresh(ctx, st, ev.Version, ev.SchemaID); err != nil {
			e := c.fail(ev, nil, ErrUnknownVersion, err)
			if errors.Is(err, ErrMissingStep) {
				e.Kind = ErrMissingStep
			}
			return e
		}
	}
	ev.Version = w.num
	if w.typ == compat.Protobuf && framed {
		idx, rest, err := ParseMessageIndexes(payload)
		if err != nil {
			return c.fail(ev, st.target, ErrDecode, err)
		}
		ps := protoStateOf(w)
		md, err := ps.file.Message(idx)
		if err != nil {
			return c.fail(ev, st.target, ErrDecode, err)
		}
		if md.FullName() != ps.msg.FullName() {
			return c.fail(ev, st.target, ErrDecode, fmt.Errorf("the payload is a %s, not the subject's message %s (see WithProtoMessage)", md.FullName(), ps.msg.FullName()))
		}
		payload = rest
	}
	p := w.plan
	*r = Result{EventID: ev.ID, Key: ev.Key, Subject: c.subject, From: w.num, To: st.target.num, chain: c, target: st.target}
	if p.decodeAs == p.to && len(p.steps) == 0 && p.resolved == nil {
		// Fast path: already at the target, no decode.
		r.payload, r.fast = payload, true
		return nil
	}
	v, err := p.decode(payload)
	if err != nil {
		return c.fail(ev, st.target, ErrDecode, err)
	}
	return c.run(ev, st, p, v, r)
}

// UpcastValue upcasts a decoded value of version from (see
// Upcaster.UpcastValue).
func (c *Chain) UpcastValue(ctx context.Context, from int, id string, v map[string]any) (*Result, error) {
	ev := Event{ID: id, Subject: c.subject, Version: from}
	st := c.state.Load()
	w := st.versions[from]
	if w == nil {
		var err error
		if st, w, err = c.refresh(ctx, st, from, 0); err != nil {
			return nil, c.fail(&ev, nil, ErrUnknownVersion, err)
		}
	}
	p := st.plans[w.num]
	r := &Result{EventID: id, Subject: c.subject, From: w.num, To: st.target.num, chain: c, target: st.target}
	if v == nil {
		return nil, c.fail(&ev, st.target, ErrDecode, errors.New("nil value"))
	}
	if p.resolve != nil {
		out, err := safeRun(p.resolve, v)
		if err != nil {
			return nil, c.fail(&ev, st.target, ErrDecode, err)
		}
		v = out
	}
	if err := c.run(&ev, st, p, v, r); err != nil {
		return nil, err
	}
	return r, nil
}

// run applies the plan's steps to a decoded value.
func (c *Chain) run(ev *Event, st *chainState, p *plan, v map[string]any, r *Result) error {
	mode := c.u.opts.validation
	var blame *StepInfo
	for i := range p.steps {
		s := &p.steps[i]
		out, err := safeRun(s.run, v)
		if err == nil && out == nil {
			err = errors.New("the step returned no value")
		}
		if err != nil {
			kind := ErrStep
			if errors.Is(err, errRuleOutput) {
				kind = ErrInvalidOutput
			}
			e := c.fail(ev, st.target, kind, err)
			e.Step = &s.info
			return e
		}
		if s.info.Kind != StepImplicit {
			blame = &s.info
		}
		if mode == ValidateSteps && s.info.Kind == StepGo && s.to != st.target {
			if out, err = s.to.codec.conform(out, s.to, false); err != nil {
				e := c.fail(ev, st.target, ErrInvalidOutput, fmt.Errorf("as v%d: %w", s.to.num, err))
				e.Step = &s.info
				return e
			}
		}
		v = out
	}
	// The plan's list, capped so that a caller's append copies it.
	r.Steps = p.infos[:len(p.infos):len(p.infos)]
	if mode != ValidateOff {
		out, err := st.target.codec.conform(v, st.target, false)
		if err != nil {
			e := c.fail(ev, st.target, ErrInvalidOutput, fmt.Errorf("as v%d: %w", st.target.num, err))
			e.Step = blame
			return e
		}
		v = out
	}
	r.value = v
	return nil
}

// safeRun calls a step, turning a panic into an error: one odd event
// must not take a replay job down.
func safeRun(f func(map[string]any) (map[string]any, error), v map[string]any) (out map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return f(v)
}

func (c *Chain) fail(ev *Event, target *version, kind, err error) *Error {
	e := &Error{Kind: kind, EventID: ev.ID, Subject: c.subject, Version: ev.Version, SchemaID: ev.SchemaID, Err: err}
	if target != nil {
		e.Target = target.num
	}
	return e
}

// refresh re-reads the subject when an event names a version or schema ID
// the chain does not know (one re-read at a time, at most once per
// refresh interval; IDs still unknown afterwards are remembered).
func (c *Chain) refresh(ctx context.Context, seen *chainState, num int, id int64) (*chainState, *version, error) {
	find := func(st *chainState) *version {
		if num > 0 {
			return st.versions[num]
		}
		return st.byID[id]
	}
	notFound := func(st *chainState) error {
		if num > 0 {
			return fmt.Errorf("%s has no version %d (versions %v)", c.subject, num, st.order)
		}
		return fmt.Errorf("schema ID %d is not a version of %s", id, c.subject)
	}
	o := &c.u.opts
	if id > 0 && num == 0 {
		c.unknownMu.Lock()
		when, known := c.unknown[id]
		c.unknownMu.Unlock()
		if known && o.now().Sub(when) < o.refreshEvery {
			return nil, nil, notFound(seen)
		}
	}
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	cur := c.state.Load()
	if v := find(cur); v != nil {
		return cur, v, nil
	}
	if cur == seen && o.now().Sub(cur.built) >= o.refreshEvery {
		st, err := c.build(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (re-reading the subject for a version it did not have: %w)", notFound(cur), err)
		}
		c.state.Store(st)
		cur = st
		if v := find(cur); v != nil {
			return cur, v, nil
		}
	}
	if id > 0 && num == 0 {
		c.unknownMu.Lock()
		if len(c.unknown) >= 10000 {
			clear(c.unknown)
		}
		c.unknown[id] = o.now()
		c.unknownMu.Unlock()
	}
	return nil, nil, notFound(cur)
}
