//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// oNoFollow makes an open fail on a symlink in the last path component.
const oNoFollow = syscall.O_NOFOLLOW

// lockDir uses flock(2) on the directory's file descriptor. flock locks
// belong to the open file description, so two LockDir calls in one process
// exclude each other as two processes do.
func lockDir(dir string) (*Lock, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &fs.PathError{Op: "lock", Path: dir, Err: ErrLocked}
		}
		return nil, &fs.PathError{Op: "lock", Path: dir, Err: err}
	}
	return &Lock{release: f.Close}, nil // closing the descriptor releases the lock
}
