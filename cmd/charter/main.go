// Command charter is Charter's one binary: the schema registry server
// (`charter serve`) and, later, the governance CLI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
