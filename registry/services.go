package registry

// The registry's Service keeps the Confluent domain: subjects, versions,
// schema IDs, config, modes, references and compatibility. Governance,
// lineage and consumer contracts are services of their own over the same
// store, reached through the Service (svc.Governance(), svc.Lineage(),
// svc.ContractRegistry()); they plug into registration through one
// hook, the gate's state (loadState) and what a registration records
// (recordRegistration), both in the registration's transaction.

// Governance is Charter's governance service: owners, policy,
// deprecations and extensions, removed fields, reviewed dismissals, tags,
// the changelog, the audit log, the gate's state and dry run.
type Governance struct{ s *Service }

// Lineage is the lineage service: producers, declared consumers and the
// queries over them (impact, PII exposure, the graph).
type Lineage struct{ s *Service }

// ContractRegistry stores consumer contracts (Pact message pacts) and
// verifies them against proposed schemas.
type ContractRegistry struct{ s *Service }

// Governance returns the governance service of s.
func (s *Service) Governance() *Governance { return &Governance{s} }

// Lineage returns the lineage service of s.
func (s *Service) Lineage() *Lineage { return &Lineage{s} }

// ContractRegistry returns the consumer-contract service of s.
func (s *Service) ContractRegistry() *ContractRegistry { return &ContractRegistry{s} }
