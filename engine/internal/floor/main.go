// Command floor is the lower bound the offline benchmark compares citegate
// with (issue 13): the work no implementation of `citegate run` offline can
// skip. It reads every wave file of a run, parses each with goldmark (the
// same extensions citegate uses, bare-URL linkify included), hashes every
// link destination with SHA-256, and writes -write-bytes of output (what
// citegate writes for the same run) to one file, fsynced. It does no
// normalization, collation, validation, schema checking or redaction.
//
//	go run ./engine/internal/floor -root RUN_DIR -out OUT_DIR -write-bytes N
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

var markdown = goldmark.New(goldmark.WithExtensions(
	extension.Table,
	extension.Strikethrough,
	extension.NewLinkify(extension.WithLinkifyURLRegexp(regexp.MustCompile(`^(?i:https?)://[^\s<]+`))),
))

func main() {
	root := flag.String("root", "", "run directory (its wave-1 and wave-2 are read)")
	out := flag.String("out", "", "directory for the output file")
	writeBytes := flag.Int64("write-bytes", 0, "bytes to write (at least one line per link)")
	flag.Parse()
	if *root == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "floor: -root and -out are required")
		os.Exit(2)
	}
	if err := run(*root, *out, *writeBytes); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(root, outDir string, writeBytes int64) error {
	var files []string
	for _, w := range []string{"wave-1", "wave-2"} {
		m, err := filepath.Glob(filepath.Join(root, w, "*.md"))
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	f, err := os.Create(filepath.Join(outDir, "floor.out"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var written int64
	var lines []string // kept to pad the output to writeBytes
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		doc := markdown.Parser().Parse(text.NewReader(src))
		err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			var dest string
			switch n := n.(type) {
			case *ast.Link:
				dest = string(n.Destination)
			case *ast.AutoLink:
				dest = string(n.URL(src))
			default:
				return ast.WalkContinue, nil
			}
			if !strings.HasPrefix(strings.ToLower(dest), "http") {
				return ast.WalkContinue, nil
			}
			sum := sha256.Sum256([]byte(dest))
			line := hex.EncodeToString(sum[:]) + " " + dest + "\n"
			lines = append(lines, line)
			k, err := w.WriteString(line)
			written += int64(k)
			return ast.WalkContinue, err
		})
		if err != nil {
			return err
		}
	}
	for i := 0; written < writeBytes && len(lines) > 0; i++ {
		k, err := w.WriteString(lines[i%len(lines)])
		if err != nil {
			return err
		}
		written += int64(k)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}
