package serve

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/exporter"
)

// exporterLease is the lease a replica holds on each exporter it runs
// when replicas share a PostgreSQL database: only the holder copies, and
// another replica takes the exporter over within this long of the
// holder's death.
const exporterLease = 30 * time.Second

// startExporters runs the schema exporters' runner (registry/exporter)
// until ctx ends; the returned function stops it and waits until it has
// returned, so that the store can be closed after it.
func startExporters(ctx context.Context, cfg Config, svc *registry.Service, sealer *exporter.Sealer, clusterID string, log *slog.Logger) (stop func()) {
	opts := exporter.RunnerOptions{ClusterID: clusterID, Logger: log, Sealer: sealer}
	if isPostgres(cfg.DB) {
		opts.Lease = exporterLease
	}
	r := exporter.NewRunner(svc.ExporterStore(), svc.ExportSource(), opts)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// exporterSealer reads --secrets-key-file into the Sealer of exporters'
// credentials; none without the flag.
func (cfg Config) exporterSealer() (*exporter.Sealer, error) {
	if cfg.SecretsKeyFile == "" {
		return nil, nil
	}
	secret, err := os.ReadFile(cfg.SecretsKeyFile)
	if err != nil {
		return nil, fmt.Errorf("--secrets-key-file: %w", err)
	}
	sealer, err := exporter.NewSealer(secret)
	if err != nil {
		return nil, fmt.Errorf("--secrets-key-file %s: %w", cfg.SecretsKeyFile, err)
	}
	return sealer, nil
}
