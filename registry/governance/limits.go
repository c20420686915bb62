package governance

// Bounds of the governance tags of one subject (PUT
// /governance/subjects/{s}/tags): every registration resolves each field
// against every glob, so the work of a registration grows with their
// number. Real subjects carry a few globs of a few tags each.
const (
	// MaxTagGlobs is the largest number of path globs.
	MaxTagGlobs = 256
	// MaxTagsPerGlob is the largest number of tags one glob gives.
	MaxTagsPerGlob = 100
	// MaxTagLength is the longest glob or tag, in bytes.
	MaxTagLength = 256
)
