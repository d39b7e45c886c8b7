// Package fsx holds the file primitives citegate writes and reads artifacts
// with. Artifacts are the pipeline's record and later stages trust them, so a
// crash or kill must never leave a half-written artifact (WriteAtomic), a hostile
// or mistaken input path must never make a stage read unbounded data or hang on
// a FIFO or device (ReadLimited), and concurrent writers of an append-only log
// must never interleave within a line (AppendLine).
package fsx

import (
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
// temporary file is removed on any failure. The file gets mode 0644.
func WriteAtomic(path string, data []byte) error {
	err := WriteAllAtomic([]File{{Path: path, Data: data}})
	var be *BatchError
	if errors.As(err, &be) {
		return be.Err
	}
	return err
}

// File is one member of a WriteAllAtomic batch.
type File struct {
	Path string
	Data []byte
}

// BatchError says which file of a batch failed.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// WriteAllAtomic writes a set of files all or nothing, as far as a file
// system allows: every file is first written in full and synced to a
// temporary file beside its target, and only when all are staged are they
// renamed into place. A failure while staging (a target that is a directory,
// a parent that is a file, no space) leaves every target as it was. Writing
// the files one after another would leave the first ones replaced when a
// later one failed. Errors are *BatchError.
func WriteAllAtomic(files []File) error {
	tmps := make([]string, 0, len(files))
	cleanup := func() {
		for _, t := range tmps {
			_ = os.Remove(t)
		}
	}
	for i, f := range files {
		tmp, err := stage(f.Path, f.Data)
		if err != nil {
			cleanup()
			return &BatchError{i, err}
		}
		tmps = append(tmps, tmp)
	}
	dirs := map[string]bool{}
	for i, f := range files {
		if err := os.Rename(tmps[i], f.Path); err != nil {
			cleanup()
			return &BatchError{i, err}
		}
		dirs[filepath.Dir(f.Path)] = true
	}
	for i, f := range files {
		d := filepath.Dir(f.Path)
		if !dirs[d] {
			continue
		}
		delete(dirs, d)
		if err := syncDir(d); err != nil {
			return &BatchError{i, err}
		}
	}
	return nil
}

// stage writes data to a new temporary file (.<base>.tmp-*) in path's
// directory and returns its name. A path that is a directory is refused up
// front, since a rename could not replace it.
func stage(path string, data []byte) (string, error) {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return "", &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	}
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
	if err := writeAndClose(tmp, data); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// writeAndClose gives f its final mode, writes data, syncs and closes it. f is
// closed whatever happens.
func writeAndClose(f *os.File, data []byte) error {
	err := f.Chmod(fileMode) // CreateTemp makes files 0600
	if err == nil {
		_, err = f.Write(data)
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
// without a reader from blocking the open.
func AppendLine(path string, line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return &fs.PathError{Op: "append", Path: path, Err: errNewline}
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, fileMode)
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
