package dismiss_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestDismiss: a PII finding at registration, dismissed with a reason (so
// the next registration no longer reports it), listed, undone, a field of
// a proposed schema, and the errors a person meets.
func TestDismiss(t *testing.T) {
	_, url, clk := clitest.NewRegistry(t)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("register", "parcels-value", "testdata/parcel-v1.avsc"),
		clitest.OK("dismiss", "parcels-value", "--list"),
		clitest.OK("dismiss", "parcels-value", ".sender_email", "--pattern", "PII_EMAIL", "--reason", "a shared depot mailbox, reviewed by privacy"),
	)
	clk.Day(1)
	got += clitest.TranscriptAs(t, "bob", url,
		clitest.OK("dismiss", "parcels-value", "acme.Parcel.id", "--reason", "an opaque parcel number"),
		clitest.OK("register", "parcels-value", "testdata/parcel-v2.avsc"),
		clitest.OK("dismiss", "parcels-value", "--list"),
		clitest.OK("dismiss", "parcels-value", "--list", "-o", "json"),
		clitest.OK("dismiss", "parcels-value", "acme.Parcel.id", "--undo", "-o", "json"),
		clitest.OK("dismiss", "parcels-value", ".sender_email", "--pattern", "PII_EMAIL", "--undo"),
		clitest.OK("dismiss", "parcels-value", "--list"),
		clitest.Fail("dismiss", "parcels-value", ".sender_email", "--pattern", "PII_EMAIL", "--undo"),
		clitest.Fail("dismiss", "parcels-value", ".sender_email", "--pattern", "PII_EMAIL"),
		clitest.Fail("dismiss", "parcels-value", ".sender_email", "--pattern", "PII_UNTAGGED", "--reason", "r"),
		clitest.Fail("dismiss", "parcels-value", "--reason", "r"),
		clitest.Fail("dismiss", "parcels-value", ".id", "--list"),
		clitest.Fail("dismiss", "parcels-value", ".id", "--undo", "--reason", "r"),
		clitest.Fail("dismiss", "parcels-value", "--list", "--undo"),
		// A field no version has is refused as a likely typo, unless it
		// is in a schema about to be registered.
		clitest.Fail("dismiss", "parcels-value", ".sender_mail", "--reason", "a shared depot mailbox"),
		clitest.OK("dismiss", "parcels-value", ".courier_note", "--proposed", "--reason", "free text about the parcel, reviewed by privacy"),
		clitest.Fail("dismiss", "parcels-value", ".courier_note", "--undo", "--proposed"),
		clitest.OK("audit", "--action", "dismissal."),
	)
	clitest.Golden(t, "dismiss.golden", got, url, "$REGISTRY")
}
