package fsx

import (
	"bufio"
	"io/fs"
	"os"
	"syscall"
)

// CopyOf is a File.Stream that copies the regular file at path as it is
// when the commit stages it, without holding it in memory: with a Remove
// of path in the same batch, a move that keeps Commit's all-or-nothing
// property (the copy is staged before the commit point, the original is
// removed after it). The open follows no symlink and does not block on a
// FIFO; anything but a regular file fails with ErrNotRegular.
func CopyOf(path string) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error {
		f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return &fs.PathError{Op: "copy", Path: path, Err: ErrNotRegular}
		}
		_, err = w.ReadFrom(f)
		return err
	}
}
