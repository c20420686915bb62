package global

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/registry/client"
)

// Conn is what every governance command shares: the registry and output
// format of the root's global flags, and who acts (recorded in the
// registry's audit log).
type Conn struct {
	// Actor is the --actor flag; empty falls back to $CHARTER_ACTOR, then
	// $USER (see Actor).
	Actor string
	// Format is the output format Client read from the global --output.
	Format string

	hc *http.Client
}

// NewConn returns a Conn whose clients talk through hc; nil means
// Connect's http.Client (Timeout, the CA file).
func NewConn(hc *http.Client) *Conn {
	return &Conn{hc: hc}
}

// Flags adds --actor to cmd.
func (c *Conn) Flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.Actor, FlagActor, "", ActorUsage)
}

// Client returns the registry client (see Connect: the global flags, the
// actor, the injected http.Client) after reading the global --output
// format, one of formats, into Format.
func (c *Conn) Client(cmd *cobra.Command, formats ...string) (*client.Client, error) {
	f, err := Output(cmd, formats...)
	if err != nil {
		return nil, err
	}
	c.Format = f
	return Connect(cmd, Target{Actor: strings.TrimSpace(c.Actor), HTTPClient: c.hc})
}

// WriteJSON writes v as indented JSON without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Date formats t as a UTC calendar date, "-" for the zero time.
func Date(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02")
}
