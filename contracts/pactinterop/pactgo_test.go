//go:build pactffi

package pactinterop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-foundation/pact-go/v2/log"
	"github.com/pact-foundation/pact-go/v2/matchers"
	v3 "github.com/pact-foundation/pact-go/v2/message/v3"
	v4 "github.com/pact-foundation/pact-go/v2/message/v4"
	"github.com/pact-foundation/pact-go/v2/models"

	"github.com/charter-dev/charter/contracts"
)

func init() { interop = runInterop }

// Shipment is the message the consumers handle.
type Shipment struct {
	ShipmentID  string   `json:"shipment_id"`
	CarrierCode string   `json:"carrier_code"`
	WeightGrams int      `json:"weight_grams"`
	Parcels     []Parcel `json:"parcels"`
	Dispatched  string   `json:"dispatched_at"`
}

// Parcel is one parcel of a shipment.
type Parcel struct {
	Barcode string `json:"barcode"`
}

// notify is the consumer's handler: it needs an ID, a carrier and parcels.
func notify(s *Shipment) error {
	if s.ShipmentID == "" || s.CarrierCode == "" || len(s.Parcels) == 0 {
		return errors.New("incomplete shipment")
	}
	return nil
}

func shipmentBody() matchers.Map {
	return matchers.Map{
		"shipment_id":   matchers.Like("s-1"),
		"carrier_code":  matchers.Regex("DHL", "[A-Z]{3}"),
		"weight_grams":  matchers.Integer(1200),
		"parcels":       matchers.EachLike(matchers.Map{"barcode": matchers.Like("P1")}, 1),
		"dispatched_at": matchers.Regex("2025-01-02T03:04:05Z", `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`),
	}
}

// writeV4 writes a V4 pact with one asynchronous message interaction.
func writeV4(t *testing.T, dir string) string {
	t.Helper()
	p, err := v4.NewAsynchronousPact(v4.Config{Consumer: "shipment-notifier", Provider: "fulfillment", PactDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	err = p.AddAsynchronousMessage().
		GivenWithParameter(models.ProviderState{Name: "a dispatched shipment", Parameters: map[string]any{"id": "s-1"}}).
		ExpectsToReceive("a shipment was dispatched").
		WithMetadata(map[string]string{"contentType": "application/json"}).
		WithJSONContent(shipmentBody()).
		AsType(&Shipment{}).
		ConsumedBy(func(m v4.AsynchronousMessage) error { return notify(m.Body.(*Shipment)) }).
		Verify(t)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "shipment-notifier-fulfillment.json")
}

// writeV3 writes a V3 message pact.
func writeV3(t *testing.T, dir string) string {
	t.Helper()
	p, err := v3.NewAsynchronousPact(v3.Config{Consumer: "shipment-auditor", Provider: "fulfillment", PactDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	err = p.AddAsynchronousMessage().
		Given("a dispatched shipment").
		ExpectsToReceive("a shipment was dispatched").
		WithMetadata(map[string]string{"contentType": "application/json"}).
		WithJSONContent(shipmentBody()).
		AsType(&Shipment{}).
		ConsumedBy(func(m v3.MessageContents) error { return notify(m.Content.(*Shipment)) }).
		Verify(t)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "shipment-auditor-fulfillment.json")
}

func runInterop(t *testing.T) {
	if os.Getenv("PACT_DO_NOT_TRACK") == "" {
		os.Setenv("PACT_DO_NOT_TRACK", "true")
	}
	log.SetLogLevel("ERROR")
	dir := t.TempDir()
	files := map[string]string{"V4": writeV4(t, dir), "V3": writeV3(t, dir)}
	for spec, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%s pact not written: %v", spec, err)
		}
		t.Logf("%s pact written by pact-go:\n%s", spec, raw)
		c, err := contracts.ReadContract(file)
		if err != nil {
			t.Fatalf("%s pact: %v", spec, err)
		}
		want := map[string]string{"V4": contracts.SpecV4, "V3": contracts.SpecV3}[spec]
		if c.Pact.Spec != want || len(c.Pact.Interactions) != 1 || len(c.Pact.Interactions[0].Rules) == 0 {
			t.Fatalf("%s pact read as spec %s with %d interactions: %+v", spec, c.Pact.Spec, len(c.Pact.Interactions), c.Pact.Interactions)
		}
		if got, want := strings.Join(c.Reads(), " "), ".carrier_code .dispatched_at .parcels .parcels[].barcode .shipment_id .weight_grams"; got != want {
			t.Errorf("%s pact reads %s, want %s", spec, got, want)
		}
		for _, sc := range []struct {
			schema string
			broken bool
			paths  []string // fields the breaking findings name
		}{
			{"shipments-v1.avsc", false, nil},
			{"shipments-v2-compatible.avsc", false, nil},
			{"shipments-v2-breaking.avsc", true, []string{".carrier_code", ".parcels[].barcode"}},
			{"shipments-v1.schema.json", false, nil},
			{"shipments-v2-breaking.schema.json", true, []string{".weight_grams"}},
		} {
			t.Run(spec+"/"+sc.schema, func(t *testing.T) {
				s, err := contracts.ReadSchemaFile(filepath.Join("testdata", sc.schema), "")
				if err != nil {
					t.Fatal(err)
				}
				rep, err := contracts.Verify([]*contracts.Contract{c}, s, contracts.Options{Now: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)})
				if err != nil {
					t.Fatal(err)
				}
				var named []string
				for _, f := range rep.Findings() {
					if f.Breaks() {
						named = append(named, f.Path)
					}
				}
				b, _ := json.MarshalIndent(rep.Findings(), "", "  ")
				if rep.Broken() != sc.broken || fmt.Sprint(named) != fmt.Sprint(sc.paths) {
					t.Errorf("broken=%v naming %v, want broken=%v naming %v; findings:\n%s", rep.Broken(), named, sc.broken, sc.paths, b)
				}
			})
		}
	}
}
