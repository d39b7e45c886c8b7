package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// names lists dir's entries, so tests can assert no temporary file is left.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteAtomicCreatesAndReplaces(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "citations", "nested", "url-map.json")
	if err := WriteAtomic(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "new\n" {
		t.Errorf("content = %q, want %q", got, "new\n")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("file mode = %v, want 0644", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o755 {
		t.Errorf("dir mode = %v, want 0755", di.Mode().Perm())
	}
	if got := names(t, filepath.Dir(path)); !slices.Equal(got, []string{"url-map.json"}) {
		t.Errorf("directory holds %v, want only url-map.json", got)
	}
}

func TestWriteAtomicRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := WriteAtomic("plain.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("plain.txt"); err != nil || string(got) != "x" {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
}

func TestWriteAtomicParentIsFile(t *testing.T) {
	root := t.TempDir()
	parent := filepath.Join(root, "file")
	if err := os.WriteFile(parent, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(filepath.Join(parent, "x.json"), []byte("{}")); err == nil {
		t.Fatal("WriteAtomic under a regular file succeeded")
	}
	if got := names(t, root); !slices.Equal(got, []string{"file"}) {
		t.Errorf("root holds %v, want only file", got)
	}
	if got, _ := os.ReadFile(parent); string(got) != "keep" {
		t.Errorf("parent file changed to %q", got)
	}
}

// The rename is the last step: when it fails (here because the target is a
// non-empty directory) the fully written temporary file must be removed and the
// old target left as it was.
func TestWriteAtomicRenameFailureLeavesOldAndNoTemp(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "gates.json")
	if err := os.MkdirAll(filepath.Join(target, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(target, []byte("{}")); err == nil {
		t.Fatal("WriteAtomic onto a non-empty directory succeeded")
	}
	if got := names(t, root); !slices.Equal(got, []string{"gates.json"}) {
		t.Errorf("root holds %v, want only gates.json", got)
	}
	if got := names(t, target); !slices.Equal(got, []string{"inner"}) {
		t.Errorf("old target changed: holds %v", got)
	}
}

// Permissions cannot make a write fail for root, so this runs only unprivileged.
func TestWriteAtomicReadOnlyDirKeepsOld(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	if err := WriteAtomic(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	if err := WriteAtomic(path, []byte("new")); err == nil {
		t.Fatal("WriteAtomic into a read-only directory succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content = %q, want old", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"manifest.json"}) {
		t.Errorf("directory holds %v", got)
	}
}

// Readers racing a writer must only ever see one complete version.
func TestWriteAtomicReadersNeverSeePartialFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "artifact.json")
	a := bytes.Repeat([]byte("a"), 256<<10)
	b := bytes.Repeat([]byte("b"), 128<<10)
	if err := WriteAtomic(path, a); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 50 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := WriteAtomic(path, data); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				t.Errorf("reader saw a partial file of %d bytes", len(got))
				return
			}
		}
	})
	wg.Wait()
	if got := names(t, filepath.Dir(path)); !slices.Equal(got, []string{"artifact.json"}) {
		t.Errorf("directory holds %v", got)
	}
}

func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	loopA, loopB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink(loopB, loopA); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loopA, loopB); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		path    string
		max     int64
		want    string
		wantErr error
	}{
		{"regular file", file, 100, "0123456789", nil},
		{"exactly max", file, 10, "0123456789", nil},
		{"one byte over max", file, 9, "", ErrTooLarge},
		{"negative max", file, -1, "", ErrTooLarge},
		{"symlink to file", link, 100, "0123456789", nil},
		{"missing", filepath.Join(dir, "missing"), 100, "", fs.ErrNotExist},
		{"dangling symlink", dangling, 100, "", fs.ErrNotExist},
		{"directory", dir, 100, "", ErrNotRegular},
		{"symlink loop", loopA, 100, "", syscall.ELOOP},
		{"character device", os.DevNull, 100, "", ErrNotRegular},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadLimited(tc.path, tc.max)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.path) {
					t.Errorf("error %q does not name the path", err)
				}
				if got != nil {
					t.Errorf("data = %q on error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("data = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadLimitedEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLimited(path, 0)
	if err != nil || len(got) != 0 {
		t.Errorf("ReadLimited = %q, %v", got, err)
	}
}

func TestReadLimitedFIFODoesNotBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := ReadLimited(path, 100)
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the reader so the test binary can exit.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("ReadLimited blocked on a FIFO")
	}
}

func TestReadLimitedPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLimited(path, 10); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("err = %v, want permission denied", err)
	}
}

// A file that grows after it was measured is still cut off at max.
func TestReadAtMostGuardsGrowth(t *testing.T) {
	r := strings.NewReader(strings.Repeat("x", 5000))
	if _, err := readAtMost(r, 10, 4096); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	got, err := readAtMost(strings.NewReader("abc"), 10, 3)
	if err != nil || string(got) != "abc" {
		t.Errorf("readAtMost = %q, %v", got, err)
	}
}

func TestAppendLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	for _, l := range []string{`{"a":1}`, `{"b":2}`} {
		if err := AppendLine(path, []byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"a\":1}\n{\"b\":2}\n"; string(got) != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
}

func TestAppendLineRejects(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	if err := AppendLine(path, []byte("two\nlines")); err == nil {
		t.Error("AppendLine accepted a line with a newline")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rejected line created the file: %v", err)
	}
	if err := AppendLine(dir, []byte("x")); err == nil {
		t.Error("AppendLine to a directory succeeded")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// No reader: the non-blocking open fails (ENXIO) instead of hanging.
	if err := AppendLine(fifo, []byte("x")); err == nil {
		t.Error("AppendLine to a FIFO succeeded")
	}
}

func TestAppendLineConcurrentWritersDoNotInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const writers, lines = 8, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			// Lines far larger than PIPE_BUF, each made of one repeated letter.
			line := bytes.Repeat([]byte{byte('a' + w)}, 16<<10+w)
			for range lines {
				if err := AppendLine(path, line); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(all) != writers*lines {
		t.Fatalf("got %d lines, want %d", len(all), writers*lines)
	}
	for i, l := range all {
		w := int(l[0] - 'a')
		if want := strings.Repeat(string(l[0]), 16<<10+w); l != want {
			t.Fatalf("line %d is interleaved (%d bytes)", i, len(l))
		}
	}
}

func ExampleReadLimited() {
	_, err := ReadLimited(filepath.Join(os.TempDir(), "citegate-example-missing"), 1<<20)
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output: true
}
