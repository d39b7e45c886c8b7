// Package fsx holds the file primitives citegate writes and reads artifacts
// with. Artifacts are the pipeline's record and later stages trust them, so:
//   - a crash or kill must never leave a half-written artifact, nor a mix of
//     old and new artifacts (Commit, with its journal, and Recover);
//   - two processes must never write one run directory at once (LockDir);
//   - an output path must never replace a device, FIFO, socket or symlink,
//     nor lead out of the run directory through a symlink (CheckTarget);
//   - a hostile or mistaken input path must never make a stage read
//     unbounded data or hang on a FIFO or device (ReadLimited);
//   - concurrent writers of an append-only log must never interleave within
//     a line (AppendLine).
package fsx

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// Permissions of the files and directories this package creates.
const (
	fileMode fs.FileMode = 0o644
	dirMode  fs.FileMode = 0o755
)

var (
	// ErrTooLarge reports that a file is bigger than the limit given to ReadLimited.
	ErrTooLarge = errors.New("file too large")
	// ErrNotRegular reports that a path names a directory, device, FIFO or
	// socket where a regular file is required.
	ErrNotRegular = errors.New("not a regular file")
)

// errNewline rejects an AppendLine line that would become two lines.
var errNewline = errors.New("line contains a newline")

// WriteAtomic replaces the file at path with data so that a crash or kill at
// any moment leaves either the old file or the new one, never a partial file:
// it creates the parent directories, writes a temporary file in the same
// directory, syncs it, renames it over path and syncs the directory. The
// temporary file is removed on any failure. The file gets mode 0644. A path
// that exists and is not a regular file is refused with ErrNotRegular, since
// the rename would replace it. WriteAtomic is for a single file that stands
// alone (a cache entry); a set of artifacts is written with Commit.
func WriteAtomic(path string, data []byte) error {
	if err := CheckTarget("", path); err != nil {
		return err
	}
	tmp, err := stage(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// File is one member of a Commit batch: its bytes, or, when Stream is set,
// a function that writes them into the staging file, so that a large
// artifact is never held whole in memory. Stream writes to a buffered writer
// whose errors are sticky: Commit flushes it and reports the first error.
type File struct {
	Path   string
	Data   []byte
	Stream func(w *bufio.Writer) error
}

// BatchError says which file of a batch failed.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// stage writes data to a new temporary file (.<base>.tmp-*) in path's
// directory and returns its name.
func stage(path string, data []byte) (string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	if err := writeAndClose(tmp, bytesBody(data)); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// bytesBody is the Stream of a file given as bytes.
func bytesBody(data []byte) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// body is f's Stream, or its Data as one.
func (f File) body() func(w *bufio.Writer) error {
	if f.Stream != nil {
		return f.Stream
	}
	return bytesBody(f.Data)
}

// writeAndClose gives f its final mode, writes the body through a buffer,
// syncs and closes it. f is closed whatever happens.
func writeAndClose(f *os.File, body func(w *bufio.Writer) error) error {
	err := f.Chmod(fileMode) // CreateTemp makes files 0600
	if err == nil {
		w := bufio.NewWriterSize(f, 64<<10)
		err = body(w)
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory report EINVAL; the rename has happened, so that is not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}

// ReadLimited reads the regular file at path, following symlinks, if it holds
// at most max bytes.
//
// Errors satisfy errors.Is with fs.ErrNotExist for a missing file, ErrTooLarge
// for a file bigger than max (decided from its size before reading, and
// enforced again while reading in case it grows), and ErrNotRegular for a
// directory, device, FIFO or socket, which are rejected without being read, so
// a FIFO cannot block the caller. Other errors, such as permission denied or a
// symlink loop (ELOOP), are returned as *fs.PathError naming path.
func ReadLimited(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkReadable(path, fi, max); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path be swapped for a FIFO after the Stat, the open
	// still returns at once and the check below rejects it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkReadable(path, fi, max); err != nil {
		return nil, err
	}
	data, err := readAtMost(f, fi.Size(), max)
	if errors.Is(err, ErrTooLarge) {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	return data, err
}

// checkReadable rejects fi unless it is a regular file of at most max bytes.
func checkReadable(path string, fi fs.FileInfo, max int64) error {
	switch {
	case !fi.Mode().IsRegular():
		return &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	case fi.Size() > max:
		return &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	return nil
}

// readAtMost reads r to the end, expecting about size bytes, and fails with
// ErrTooLarge as soon as more than max bytes arrive.
func readAtMost(r io.Reader, size, max int64) ([]byte, error) {
	limit := max
	if limit < math.MaxInt64 {
		limit++ // one byte past max tells "too large" from "exactly max"
	}
	var buf bytes.Buffer
	buf.Grow(int(min(size, max)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(r, limit)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, ErrTooLarge
	}
	return buf.Bytes(), nil
}

// AppendLine appends line and a "\n" to the file at path, creating the file
// (mode 0644) and its parent directories as needed. The line is written with a
// single write to a file opened with O_APPEND, so lines appended concurrently,
// even by different processes, never interleave. A line containing "\n" is
// rejected, and so is a path that is not a regular file; O_NONBLOCK keeps a FIFO
// without a reader from blocking the open, and O_NOFOLLOW keeps a symlink in
// the log's place from sending the line somewhere else.
func AppendLine(path string, line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return &fs.PathError{Op: "append", Path: path, Err: errNewline}
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|oNoFollow, fileMode)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "append", Path: path, Err: ErrNotRegular}
	}
	if err == nil {
		// One write call; the full slice expression makes append copy
		// rather than write into the caller's array.
		_, err = f.Write(append(line[:len(line):len(line)], '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
