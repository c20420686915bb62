// Command gendocs writes the Markdown reference of charter's commands
// into the directory it is given (docs/cli; `go generate
// ./cmd/internal/cli` runs it).
package main

import (
	"fmt"
	"os"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs DIR")
		os.Exit(2)
	}
	if err := cli.WriteDocs(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
