package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot reports a path under the run root that symlinks would take
// outside it (or a dangling symlink, whose destination cannot be checked).
var ErrOutsideRoot = errors.New("resolves outside the run root")

// CheckTarget reports whether path may be replaced by a commit whose run
// root is root. A rename replaces whatever the name points at, so a target
// that exists must be a regular file: renaming over a device, FIFO, socket
// or symlink would destroy it (as root, /dev/null), and a directory cannot
// be replaced. A target lexically under root must also resolve under root, so
// that a symlinked subdirectory (citations/ -> /elsewhere) cannot make a
// command write outside the run directory. Paths outside root were named
// explicitly by the caller and are not confined.
func CheckTarget(root, path string) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if root == "" || !Within(root, path) {
		return nil
	}
	return Contained(root, filepath.Dir(path))
}

// Within reports whether path is root or lies under it, by name alone.
func Within(root, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Contained checks that path, with every symlink in its existing part
// resolved, is root or lies under root (resolved the same way). It returns
// ErrOutsideRoot (as *fs.PathError) when it does not, and the resolution error
// (a symlink loop, a permission problem) when path cannot be resolved.
func Contained(root, path string) error {
	r, err := resolveExisting(root)
	if err != nil {
		return err
	}
	p, err := resolveExisting(path)
	if err != nil {
		return err
	}
	if !Within(r, p) {
		return &fs.PathError{Op: "write", Path: path, Err: ErrOutsideRoot}
	}
	return nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of p
// and appends the rest, which does not exist yet and so holds no symlink.
func resolveExisting(p string) (string, error) {
	p = filepath.Clean(p)
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if _, lerr := os.Lstat(p); lerr == nil {
			// p exists but does not resolve: a dangling symlink, whose
			// destination cannot be shown to stay inside anything.
			return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrOutsideRoot}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
