package contracts

import (
	"errors"
	"fmt"
	"os"
	"sort"
)

// Contract is a published consumer contract: a pact tied to the consumer
// that wrote it, the consumer's version and branch, and the subject whose
// messages it reads.
type Contract struct {
	// Consumer is the consuming service; defaults to the pact's consumer.
	Consumer string `json:"consumer"`
	// ConsumerVersion is the consumer's application version (a git SHA or
	// a semantic version) as the Pact Broker records it.
	ConsumerVersion string `json:"consumerVersion,omitempty"`
	// Branch is the consumer's repository branch the pact was built on.
	Branch string `json:"branch,omitempty"`
	// Subject is the registry subject whose messages the consumer reads.
	Subject string `json:"subject,omitempty"`
	// Pact is the parsed pact file.
	Pact *Pact `json:"pact"`
}

// Errors of Contract.Validate.
var (
	ErrNoSubject         = errors.New("contract names no subject")
	ErrNoConsumerVersion = errors.New("contract has no consumer version")
)

// Validate reports whether c can be published: it needs a pact, a consumer,
// a consumer version and a subject. Offline verification needs only the
// pact.
func (c *Contract) Validate() error {
	switch {
	case c == nil || c.Pact == nil:
		return fmt.Errorf("contract: %w", ErrMalformedPact)
	case c.consumer() == "":
		return fmt.Errorf("contract: %w: no consumer name", ErrMalformedPact)
	case c.ConsumerVersion == "":
		return fmt.Errorf("contract of %s: %w", c.consumer(), ErrNoConsumerVersion)
	case c.Subject == "":
		return fmt.Errorf("contract of %s %s: %w", c.consumer(), c.ConsumerVersion, ErrNoSubject)
	}
	return nil
}

func (c *Contract) consumer() string {
	if c.Consumer != "" {
		return c.Consumer
	}
	if c.Pact != nil {
		return c.Pact.Consumer
	}
	return ""
}

// ReadContract parses a pact file into a Contract of the pact's consumer.
// The error names the file.
func ReadContract(path string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read pact: %w", err)
	}
	p, err := ParsePact(data)
	if err != nil {
		return nil, fmt.Errorf("pact %s: %w", path, err)
	}
	return &Contract{Consumer: p.Consumer, Pact: p}, nil
}

// Reads returns the fields the contract reads, sorted, in compat.Field path
// syntax (".order.id", ".items[].sku", ".attributes{}" for the values of a
// map matched with the "values" matcher). Every property of every example
// message is a field read, containers included: a consumer that reads
// ".order.id" reads ".order". These are the contract's own paths; Resolve
// maps them onto a schema's field paths (Protobuf JSON names, maps).
func (c *Contract) Reads() []string {
	set := map[string]bool{}
	for i := range c.Pact.Interactions {
		for _, p := range c.Pact.Interactions[i].Reads() {
			set[p] = true
		}
	}
	return setList(set)
}

// Reads returns the fields one interaction reads, as Contract.Reads.
func (in *Interaction) Reads() []string {
	set := map[string]bool{}
	if in.Contents != nil {
		collectReads(in.Rules, in.Contents, "", nil, set)
	}
	return setList(set)
}

func setList(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func collectReads(rules []MatchingRule, v any, path string, item []itemStep, set map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		isMap := hasMatcher(exactRule(rules, item), MatchValues, MatchEachKey, MatchEachValue)
		for _, k := range sortedKeys(t) {
			child := path + "." + k
			if isMap {
				child = path + "{}"
			}
			set[child] = true
			collectReads(rules, t[k], child, appendStep(item, itemStep{name: k, index: -1}), set)
		}
	case []any:
		for i, e := range t {
			collectReads(rules, e, path+"[]", appendStep(item, itemStep{index: i}), set)
		}
	}
}

// appendStep returns item+s without aliasing item's backing array.
func appendStep(item []itemStep, s itemStep) []itemStep {
	out := make([]itemStep, len(item)+1)
	copy(out, item)
	out[len(item)] = s
	return out
}

func hasMatcher(r *MatchingRule, types ...MatcherType) bool {
	if r == nil {
		return false
	}
	for _, m := range r.Matchers {
		for _, t := range types {
			if m.Type == t {
				return true
			}
		}
	}
	return false
}
