package governance

import (
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
)

// CategoryContract is the category of the consumer-contract rules
// (package contracts' rule IDs, CONTRACT_…), which the registry reports
// when a registration breaks a published contract (Charter issue 5).
const CategoryContract = "contract"

// ContractSeverity is the default severity, in the registry and in
// `charter check` alike, of a contract rule of severity s: the contract
// rule's own (a registration that breaks a published contract is
// refused; Charter issue 10 §2).
func ContractSeverity(s contracts.Severity) rule.Severity {
	switch s {
	case contracts.SeverityError:
		return rule.Error
	case contracts.SeverityWarning:
		return rule.Warning
	}
	return rule.Notice
}

// contractRulesAdded lists package contracts' rules in the governance
// table (before rules.go's init sorts and registers it), so a policy may
// configure them and PolicyConfig.Severity knows their defaults.
var contractRulesAdded = func() bool {
	for _, r := range contracts.Rules() {
		rules = append(rules, rule.Rule{ID: r.ID, Category: CategoryContract, Severity: ContractSeverity(r.Severity),
			Purpose: r.Purpose, Source: r.Source})
	}
	return true
}()

var deprecationTableAdded = func() bool {
	rules = append(rules, deprecationTableRules...)
	return true
}()

// Covers reports whether reading read reads the field at path: the field
// itself or something inside it (".carrier" covers ".carrier.code",
// ".carrier<acme.Carrier>.code", ".lines[]…", ".attrs{}…"), as lineage's
// impact query counts readers.
func Covers(path, read string) bool {
	if read == path {
		return true
	}
	if !strings.HasPrefix(read, path) {
		return false
	}
	switch read[len(path)] {
	case '.', '[', '{', '<':
		return true
	}
	return false
}

// ReadersOf returns, sorted, the consumers of readers (consumer → paths
// read) that read path or a field under it (Covers).
func ReadersOf(path string, readers map[string][]string) []string {
	var out []string
	for c, paths := range readers {
		for _, p := range paths {
			if Covers(path, p) {
				out = append(out, c)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
