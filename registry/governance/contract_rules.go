package governance

import (
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/registry/policy"
)

// CategoryContract is the category of the consumer-contract rules
// (package contracts' rule IDs, CONTRACT_…), which the registry reports
// when a registration breaks a published contract (Charter issue 5).
const CategoryContract = "contract"

// ContractSeverity is the default severity, in the registry, of a
// contract rule of severity s: a contract error is a warning unless the
// operator raises the rule to "error" in the policy (so a registration
// from an unmodified Confluent client is never refused because of a
// contract it does not know about); warnings stay warnings, notices
// notices.
func ContractSeverity(s contracts.Severity) policy.Severity {
	if s == contracts.SeverityNotice {
		return policy.Notice
	}
	return policy.Warning
}

// contractRulesAdded lists package contracts' rules in the governance
// table (before rules.go's init sorts and registers it), so a policy may
// configure them and PolicyConfig.Severity knows their defaults.
var contractRulesAdded = func() bool {
	for _, r := range contracts.Rules() {
		rules = append(rules, policy.Rule{ID: r.ID, Category: CategoryContract, Severity: ContractSeverity(r.Severity),
			Purpose: r.Purpose, Source: r.Source})
	}
	return true
}()
