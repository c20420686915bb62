package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/action/rules"
	"github.com/charter-dev/charter/compat/rule"
)

// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format
// Version 2.1.0"), the subset code-scanning UIs read.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	DefaultConfiguration sarifLevel        `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties,omitempty"`
}

type sarifLevel struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevelOf(s rule.Severity) string {
	switch s {
	case rule.Error:
		return "error"
	case rule.Warning:
		return "warning"
	}
	return "note"
}

// checkSARIF writes one run whose rules are the rules that fired, in order
// of first appearance.
func checkSARIF(w io.Writer, r *project.Result, o Options) error {
	drv := sarifDriver{Name: "charter", Version: o.ToolVersion, InformationURI: "https://github.com/charter-dev/charter", Rules: []sarifRule{}}
	index := map[string]int{}
	results := []sarifResult{}
	for _, f := range r.Findings {
		i, ok := index[f.RuleID]
		if !ok {
			i = len(drv.Rules)
			index[f.RuleID] = i
			sr := sarifRule{ID: f.RuleID, ShortDescription: sarifText{f.RuleID}, DefaultConfiguration: sarifLevel{sarifLevelOf(f.Severity)}}
			if info, ok := rules.Lookup(f.RuleID); ok {
				sr.ShortDescription = sarifText{info.Purpose}
				sr.DefaultConfiguration = sarifLevel{sarifLevelOf(info.Severity)}
				sr.Properties = map[string]string{"category": info.Category}
				if info.Format != "" {
					sr.Properties["format"] = string(info.Format)
				}
			}
			drv.Rules = append(drv.Rules, sr)
		}
		msg := f.Message
		if f.Path != "" {
			msg = f.Path + ": " + msg
		}
		if d := detail(f); d != "" {
			msg += " (" + d + ")"
		}
		if f.Hint != "" {
			msg += " Fix: " + f.Hint
		}
		res := sarifResult{
			RuleID:              f.RuleID,
			RuleIndex:           i,
			Level:               sarifLevelOf(f.Severity),
			Message:             sarifText{msg},
			PartialFingerprints: map[string]string{"charterFinding/v1": fingerprint(f)},
			Properties:          map[string]any{"subject": f.Subject},
		}
		for k, v := range map[string]string{"path": f.Path, "hint": f.Hint, "direction": f.Direction, "consumer": f.Consumer} {
			if v != "" {
				res.Properties[k] = v
			}
		}
		if f.Version > 0 {
			res.Properties["version"] = f.Version
		}
		if f.Evidence != nil {
			res.Properties["evidence"] = f.Evidence
		}
		var loc sarifLocation
		if f.File != "" {
			loc.PhysicalLocation = &sarifPhysical{}
			loc.PhysicalLocation.ArtifactLocation.URI = o.PathPrefix + f.File
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
		}
		if f.Subject != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: f.Subject + f.Path, Kind: "member"}}
		}
		if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
			res.Locations = []sarifLocation{loc}
		}
		results = append(results, res)
	}
	log := sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{{Tool: sarifTool{Driver: drv}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

// fingerprint identifies a finding across line moves: rule, subject, path,
// direction and consumer.
func fingerprint(f rule.Finding) string {
	h := sha256.Sum256([]byte(f.RuleID + "\x00" + f.Subject + "\x00" + f.Path + "\x00" + f.Direction + "\x00" + f.Consumer))
	return hex.EncodeToString(h[:16])
}
