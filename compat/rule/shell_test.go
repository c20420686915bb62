package rule

import (
	"os/exec"
	"testing"
)

func TestShellArg(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"orders-value", "orders-value"},
		{"com.acme.Order:v1/x@y", "com.acme.Order:v1/x@y"},
		{"my order-value", "'my order-value'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf ~)", "'$(rm -rf ~)'"},
		{"a\nb", "'a\nb'"},
		{"", "''"},
		{"ünï", "'ünï'"},
	} {
		if got := ShellArg(tc.in); got != tc.want {
			t.Errorf("ShellArg(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A shell reads each back as the one word it was.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, in := range []string{"my order-value", "it's", "$(echo x)", "a\nb", "", "`x`", `a\b"c`} {
		out, err := exec.Command(sh, "-c", "printf '%s' "+ShellArg(in)).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(out) != in {
			t.Errorf("sh read %q back as %q", in, out)
		}
	}
}
