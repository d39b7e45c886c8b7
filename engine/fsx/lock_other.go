//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package fsx

import "os"

// oNoFollow: this platform has no O_NOFOLLOW; the Lstat checks remain.
const oNoFollow = 0

// lockDir: platforms without flock(2) get no inter-process lock (the
// README says so); the directory must still exist.
func lockDir(dir string) (*Lock, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return &Lock{release: func() error { return nil }}, nil
}
