package fsx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A copy plus a removal in one batch is a move: the new name holds the old
// bytes and the old name is gone; a source that is not a regular file
// fails the batch before the commit point, leaving everything as it was
// (a FIFO without blocking the commit).
func TestCopyOfMovesInOneCommit(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "wave-1", "a.md")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("old bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, ".aside", "1", "wave-1", "a.md")
	if err := Commit(context.Background(), Batch{Root: root, Files: []File{{Path: dst, Stream: CopyOf(src)}}, Remove: []string{src}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != "old bytes" {
		t.Errorf("moved file: %q %v", b, err)
	}
	if _, err := os.Lstat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the source is still there: %v", err)
	}

	fifo := filepath.Join(root, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link.md")
	if err := os.Symlink(dst, link); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{fifo, link} {
		before := tree(t, root)
		err := Commit(context.Background(), Batch{Root: root, Files: []File{{Path: filepath.Join(root, "copy.md"), Stream: CopyOf(from)}}})
		if err == nil {
			t.Errorf("copying %s succeeded", from)
		}
		sameTree(t, "after a failed copy of "+from, tree(t, root), before)
	}
}
