package fsx

import "errors"

// ErrLocked reports that another process holds the run directory's lock.
var ErrLocked = errors.New("run directory is locked by another citegate process")

// Lock is an exclusive lock on a run directory, held until Unlock or until
// the process ends: the kernel releases it even after kill -9, so a crashed
// run never leaves the directory locked.
type Lock struct {
	release func() error
}

// Unlock releases the lock. It is safe to call more than once.
func (l *Lock) Unlock() error {
	if l == nil || l.release == nil {
		return nil
	}
	r := l.release
	l.release = nil
	return r()
}

// LockDir takes the exclusive lock of the directory dir without waiting: it
// fails with ErrLocked at once when another process (or another LockDir in
// this process) holds it. The lock is taken on the directory itself, so it
// creates no file: a lock file would be one more thing left in the run
// directory, and deleting one safely is not possible with flock.
func LockDir(dir string) (*Lock, error) {
	return lockDir(dir)
}
