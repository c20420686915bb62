package serve

import (
	"context"
	"log/slog"
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
func startExporters(ctx context.Context, cfg Config, svc *registry.Service, clusterID string, log *slog.Logger) (stop func()) {
	opts := exporter.RunnerOptions{ClusterID: clusterID, Logger: log}
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
