//go:build !unix && !windows

package sqlite

import "os"

// tryLock has no advisory lock to take on this platform: a store always
// owns its file, and keeping a second process off it is the operator's.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }
