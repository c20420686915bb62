// Package replay is an example of package upcast: a replay job that
// rebuilds a projection of orders from a log holding three generations of
// the OrderPlaced event, without editing the stored events and without
// version branches in the projection.
//
// The three generations (Avro, subject "OrderPlaced"):
//
//	v1  {id, customer: "Ada Lovelace <ada@example.com>", totalCents: long}
//	v2  {orderId, customer: {name, email}, totalCents: long}
//	    (a rename, and a split of one field into a record)
//	v3  {orderId, customer: {name, email}, amount: decimal(12,2), currency}
//	    (a unit change from cents to a decimal amount)
//
// Both changes break compatibility, so each needs a step: Steps registers
// them as Go functions, and AmountRule is the v2→v3 step as a Confluent
// JSONata migration rule for registries that carry it on v3. A downcaster
// (v3→v2) serves consumers still on v2. The projection only knows v3.
package replay

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/upcast"
)

// Subject is the registry subject of OrderPlaced.
const Subject = "OrderPlaced"

// The three generations of OrderPlaced.
const (
	V1 = `{"type":"record","name":"OrderPlaced","namespace":"com.acme.orders","fields":[
		{"name":"id","type":"string"},
		{"name":"customer","type":"string","doc":"Name <email>"},
		{"name":"totalCents","type":"long"}]}`
	V2 = `{"type":"record","name":"OrderPlaced","namespace":"com.acme.orders","fields":[
		{"name":"orderId","type":"string"},
		{"name":"customer","type":{"type":"record","name":"Customer","fields":[
			{"name":"name","type":"string"},
			{"name":"email","type":["null","string"],"default":null}]}},
		{"name":"totalCents","type":"long"}]}`
	V3 = `{"type":"record","name":"OrderPlaced","namespace":"com.acme.orders","fields":[
		{"name":"orderId","type":"string"},
		{"name":"customer","type":{"type":"record","name":"Customer","fields":[
			{"name":"name","type":"string"},
			{"name":"email","type":["null","string"],"default":null}]}},
		{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},
		{"name":"currency","type":"string","default":"EUR"}]}`
)

// AmountRule is the v2→v3 step as a Confluent migration rule (JSONata),
// to attach to v3's ruleSet: one definition for Confluent clients and for
// replays.
var AmountRule = client.Rule{
	Name: "centsToAmount", Kind: "TRANSFORM", Type: "JSONATA", Mode: "UPGRADE",
	Expr: `$merge([$sift($, function($v,$k){$k != 'totalCents'}), {'amount': totalCents / 100}])`,
}

// SplitCustomer is the v1→v2 upcaster: id becomes orderId, and
// "Name <email>" becomes {name, email}. It edits its input in place (a
// step owns it) and moves the id's value rather than copying it.
func SplitCustomer(v map[string]any) (map[string]any, error) {
	id := v["id"]
	if _, ok := id.(string); !ok {
		return nil, fmt.Errorf("id is %T, want a string", id)
	}
	raw, _ := v["customer"].(string)
	name, email := raw, any(nil)
	if i := strings.LastIndexByte(raw, '<'); i >= 0 && strings.HasSuffix(raw, ">") {
		name, email = raw[:i], raw[i+1:len(raw)-1]
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, fmt.Errorf("customer %q has no name", raw)
	}
	delete(v, "id")
	v["orderId"] = id
	v["customer"] = map[string]any{"name": name, "email": email}
	return v, nil
}

// CentsToAmount is the v2→v3 upcaster: totalCents (long) becomes amount
// (decimal) in euros.
func CentsToAmount(v map[string]any) (map[string]any, error) {
	cents, ok := v["totalCents"].(int64)
	if !ok {
		return nil, fmt.Errorf("totalCents is %T, want int64", v["totalCents"])
	}
	delete(v, "totalCents")
	v["amount"] = Euros(cents)
	v["currency"] = "EUR"
	return v, nil
}

// Euros returns cents/100 as a decimal, with integer math: the fraction
// is reduced by gcd(cents, 100), read from a table by the cents'
// remainder, before it is stored, so big.Rat has nothing left to
// normalise (SetFrac64 would run a big-integer GCD on every event).
func Euros(cents int64) *big.Rat {
	rem := cents % 100
	if rem < 0 {
		rem = -rem
	}
	g := gcd100[rem]
	r := new(big.Rat).SetInt64(cents / g)
	if d := 100 / g; d != 1 {
		// Once r is set, Denom is a reference to its denominator (math/big
		// documents this); (cents/g)/d is already in lowest terms.
		r.Denom().SetInt64(d)
	}
	return r
}

// gcd100[r] is gcd(100, r): gcd(cents, 100) = gcd(100, cents mod 100).
var gcd100 = func() (t [100]int64) {
	for r := range t {
		g, x := int64(100), int64(r)
		for x != 0 {
			g, x = x, g%x
		}
		t[r] = g
	}
	return t
}()

// AmountToCents is the v3→v2 downcaster for consumers still on v2.
func AmountToCents(v map[string]any) (map[string]any, error) {
	amount, ok := v["amount"].(*big.Rat)
	if !ok {
		return nil, fmt.Errorf("amount is %T, want *big.Rat", v["amount"])
	}
	if c, _ := v["currency"].(string); c != "EUR" {
		return nil, fmt.Errorf("currency %q cannot be expressed in v2 (euro cents only)", c)
	}
	cents := new(big.Rat).Mul(amount, big.NewRat(100, 1))
	if !cents.IsInt() || !cents.Num().IsInt64() {
		return nil, fmt.Errorf("amount %s is not a whole number of cents", amount.FloatString(4))
	}
	delete(v, "amount")
	delete(v, "currency")
	v["totalCents"] = cents.Num().Int64()
	return v, nil
}

// Steps returns the hand-written steps. With amountAsRule the v2→v3 step
// is left to the registry's migration rule (AmountRule).
func Steps(amountAsRule bool) *upcast.Steps {
	s := upcast.NewSteps()
	s.MustRegister(Subject, 1, 2, "splitCustomer", SplitCustomer)
	if !amountAsRule {
		s.MustRegister(Subject, 2, 3, "centsToAmount", CentsToAmount)
	}
	s.MustRegister(Subject, 3, 2, "amountToCents", AmountToCents)
	return s
}

// Source returns the three generations as an in-memory schema source
// (schema IDs 1, 2, 3), for jobs that ship their schemas.
func Source() *upcast.StaticSource {
	src := &upcast.StaticSource{}
	for i, text := range []string{V1, V2, V3} {
		if err := src.Add(client.SubjectSchema{Subject: Subject, Version: i + 1, Schema: client.Schema{ID: int64(i + 1), Text: text}}); err != nil {
			panic(err)
		}
	}
	return src
}

// Customer is one line of the projection.
type Customer struct {
	Name   string
	Email  string
	Orders int
	// Total is in euros.
	Total *big.Rat
}

// Projection is revenue per customer, rebuilt from OrderPlaced events of
// any version. It only knows the v3 shape. Safe for concurrent use.
type Projection struct {
	mu        sync.Mutex
	customers map[string]*Customer
	orders    map[string]bool
}

// NewProjection returns an empty projection.
func NewProjection() *Projection {
	return &Projection{customers: map[string]*Customer{}, orders: map[string]bool{}}
}

// ErrDuplicate is returned when an order is applied twice.
var ErrDuplicate = errors.New("order already applied")

// Apply adds one v3 OrderPlaced value.
func (p *Projection) Apply(v map[string]any) error {
	id, _ := v["orderId"].(string)
	c, _ := v["customer"].(map[string]any)
	amount, _ := v["amount"].(*big.Rat)
	name, _ := c["name"].(string)
	if id == "" || name == "" || amount == nil {
		return fmt.Errorf("not a v3 OrderPlaced: %v", v)
	}
	email := ""
	switch e := c["email"].(type) {
	case string:
		email = e
	case map[string]any: // a union value wrapped by its branch name
		email, _ = e["string"].(string)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.orders[id] {
		return fmt.Errorf("%w: %s", ErrDuplicate, id)
	}
	p.orders[id] = true
	cu := p.customers[name]
	if cu == nil {
		cu = &Customer{Name: name, Total: new(big.Rat)}
		p.customers[name] = cu
	}
	if email != "" {
		cu.Email = email
	}
	cu.Orders++
	cu.Total.Add(cu.Total, amount)
	return nil
}

// Customers returns the projection sorted by name.
func (p *Projection) Customers() []Customer {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Customer, 0, len(p.customers))
	for _, c := range p.customers {
		cp := *c
		cp.Total = new(big.Rat).Set(c.Total)
		out = append(out, cp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// String renders the projection, one customer per line.
func (p *Projection) String() string {
	var b strings.Builder
	for _, c := range p.Customers() {
		fmt.Fprintf(&b, "%-8s %-20s %d orders %10s EUR\n", c.Name, c.Email, c.Orders, c.Total.FloatString(2))
	}
	return b.String()
}

// Rebuild replays log into a new projection. Failed events go to dead
// (their stored bytes intact, for re-drive after a fix); later events of
// the same key are parked with them so the projection never skips one.
func Rebuild(ctx context.Context, u *upcast.Upcaster, log []upcast.Event, dead upcast.DeadLetter) (*Projection, upcast.Stats, error) {
	p := NewProjection()
	st, err := upcast.Replay(ctx, u, upcast.Events(log), func(_ context.Context, r *upcast.Result) error {
		v, err := r.Value()
		if err != nil {
			return err
		}
		return p.Apply(v)
	}, upcast.WithConcurrency(4), upcast.WithDeadLetter(dead), upcast.WithParkKeys(true))
	return p, st, err
}
