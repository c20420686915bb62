// Package auth is the `charter auth` command group: the credentials of
// the auth file that `charter serve --auth-config FILE` reads. `token`
// makes a bearer token and prints the digest line the file keeps;
// `hash-password` prints the bcrypt line of an HTTP basic password. The
// work is package registry/auth's; this package reads input and prints.
package auth

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/auth"
)

// NewCommand returns the `auth` command group.
func NewCommand(name string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "Make the credentials of the registry's auth file (tokens, password hashes)",
		Long: `Make the credentials that the auth file of 'charter serve --auth-config FILE'
lists for its principals. The file keeps only digests: a token's SHA-256 and
a password's bcrypt hash. After editing it, reload the server with SIGHUP.`,
		Example: `  charter auth token --principal alice
  charter auth hash-password < password.txt`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newToken("token"), newHashPassword("hash-password"))
	return cmd
}

func newToken(name string) *cobra.Command {
	var principal string
	cmd := &cobra.Command{
		Use:   name + " --principal NAME",
		Short: "Make a new bearer token and print the line the auth file keeps",
		Long: `Make a new random bearer token for a principal. The token is printed once and
kept nowhere: the auth file holds its SHA-256 digest, in the tokens_sha256 list
of the principal. Clients send it with --token or ` + global.EnvToken + `.`,
		Example: `  charter auth token --principal alice

  # For a script: the token and its digest as JSON
  charter auth token --principal ci-bot -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := global.Output(cmd, "text", "json")
			if err != nil {
				return err
			}
			if err := checkPrincipal(principal); err != nil {
				return err
			}
			token, digest, err := auth.NewToken()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return global.WriteJSON(out, struct {
					Principal    string `json:"principal"`
					Token        string `json:"token"`
					TokensSHA256 string `json:"tokens_sha256"`
				}{principal, token, digest})
			}
			_, err = fmt.Fprintf(out, `Token for principal %s, shown only this once:

  %s

Paste this line into principal %s of the auth file (or add the digest to its tokens_sha256 list), then reload the server (SIGHUP):

  tokens_sha256: [%s]

Use it with --token or %s, e.g. %s=%s charter subjects
`, principal, token, principal, digest, global.EnvToken, global.EnvToken, token)
			return err
		},
	}
	cmd.Flags().StringVar(&principal, "principal", "", "the principal the token authenticates, as the auth file names it (required)")
	return cmd
}

// checkPrincipal refuses a name the auth file would refuse: it parses
// the entry the command tells the user to write.
func checkPrincipal(name string) error {
	if name == "" {
		return errors.New("--principal is required: the name of the principal in the auth file")
	}
	quoted, err := json.Marshal(name) // a JSON string is a YAML one
	if err != nil {
		return fmt.Errorf("invalid --principal %q: %v", name, err)
	}
	entry := fmt.Sprintf("principals:\n  - name: %s\n    tokens_sha256: [%s]\n", quoted, auth.HashToken(""))
	if _, err := auth.Parse([]byte(entry)); err != nil {
		msg := err.Error()
		if _, reason, ok := strings.Cut(msg, `": `); ok {
			msg = reason
		}
		return fmt.Errorf("invalid --principal %q: %s", name, msg)
	}
	return nil
}

func newHashPassword(name string) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: "Read a password on stdin and print its bcrypt line for the auth file",
		Long: `Read an HTTP basic password on stdin and print the password_bcrypt line of the
auth file: paste it into the principal's entry, then reload the server
(SIGHUP). From a terminal the password is asked twice, not echoed; otherwise
stdin is one line, the password (at most 72 bytes, bcrypt's limit).

Clients send the principal's name with --user or ` + global.EnvUser + ` and the password
in ` + global.EnvPassword + `.`,
		Example: `  # Asked on the terminal
  charter auth hash-password

  # From a secret manager
  vault kv get -field=password secret/charter/alice | charter auth hash-password`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := global.Output(cmd, "text", "json")
			if err != nil {
				return err
			}
			pass, err := readPassword(cmd.InOrStdin(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			hash, err := auth.HashPassword(pass)
			if err != nil {
				return fmt.Errorf("hash the password: %w", err)
			}
			if format == "json" {
				return global.WriteJSON(cmd.OutOrStdout(), struct {
					PasswordBcrypt string `json:"password_bcrypt"`
				}{hash})
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "password_bcrypt: %s\n", hash)
			return err
		},
	}
}

// maxInput bounds what is read of a piped stdin, in bytes.
const maxInput = 4 << 10

// readPassword reads the password: from a terminal without echo, asked
// twice on prompt; else the one line of in.
func readPassword(in io.Reader, prompt io.Writer) (string, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return askPassword(int(f.Fd()), prompt)
	}
	r := bufio.NewReader(io.LimitReader(in, maxInput))
	line, err := r.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password on stdin: %w", err)
	}
	if errors.Is(err, io.EOF) && len(line) == maxInput {
		return "", fmt.Errorf("read the password on stdin: no line end in the first %d bytes", maxInput)
	}
	rest, _ := io.ReadAll(r)
	if strings.TrimSpace(string(rest)) != "" {
		return "", errors.New("stdin holds more than one line: give the password alone, on one line")
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", errors.New("stdin holds no password: give it on one line")
	}
	return line, nil
}

func askPassword(fd int, prompt io.Writer) (string, error) {
	read := func(label string) (string, error) {
		fmt.Fprint(prompt, label)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		return string(b), nil
	}
	first, err := read("Password: ")
	if err != nil {
		return "", err
	}
	second, err := read("Again: ")
	if err != nil {
		return "", err
	}
	if first != second {
		return "", errors.New("the two passwords differ")
	}
	return first, nil
}
