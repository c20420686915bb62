// Package buildinfo reports the version and commit the running binary was
// built from, as the Go toolchain recorded them.
package buildinfo

import "runtime/debug"

// Version is set at link time (-ldflags "-X .../buildinfo.Version=v1.2.3");
// otherwise it comes from the module version, or "dev".
var Version = ""

// Commit is set at link time (-ldflags "-X .../buildinfo.Commit=abc123",
// as the CI action does when it builds from a source tree without .git);
// otherwise it comes from the VCS information the toolchain recorded.
var Commit = ""

// Get returns the version and the VCS commit of the binary ("dev" and
// "unknown" when the build recorded neither).
func Get() (version, commit string) {
	version, commit = Version, Commit
	if commit == "" {
		commit = "unknown"
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if version == "" {
			version = "dev"
		}
		return version, commit
	}
	if version == "" {
		version = info.Main.Version
	}
	if version == "" || version == "(devel)" {
		version = "dev"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && s.Value != "" && Commit == "" {
			commit = s.Value
		}
	}
	return version, commit
}
