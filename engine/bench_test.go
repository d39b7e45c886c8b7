package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/internal/corpus"
	"github.com/citegate/citegate/parse/icu"
)

// benchRun generates the benchmark corpus once per benchmark.
func benchRun(b *testing.B) (*Engine, *RunDir) {
	b.Helper()
	dir := b.TempDir()
	manifest, err := corpus.Generate(dir, corpus.Default)
	if err != nil {
		b.Fatal(err)
	}
	run, err := LoadRun(manifest)
	if err != nil {
		b.Fatal(err)
	}
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := New()
	e.Now = func() time.Time { return fixed }
	return e, run
}

// BenchmarkRunOffline is the whole pipeline: 2,000 files, 50,000 Sources
// URLs, ~20,000 distinct, offline fixtures, every artifact written.
func BenchmarkRunOffline(b *testing.B) {
	e, run := benchRun(b)
	b.ResetTimer()
	for range b.N {
		if _, err := e.Run(context.Background(), RunArgs{ManifestPath: run.ManifestPath}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolChainOffline is the same corpus the way an agent drives it:
// the five tools one after another (extract, normalize, validate with the
// offline fixtures, gate-c, render), each reading back what the one before
// wrote — so, unlike BenchmarkRunOffline, it pays for reading and checking
// url-map.json, the fixtures and citations.jsonl.
func BenchmarkToolChainOffline(b *testing.B) {
	e, run := benchRun(b)
	ctx := context.Background()
	m, reason := run.ManifestPath, "bench"
	fixtures := filepath.Join(run.Root, "offline-fixtures.json")
	b.ResetTimer()
	for range b.N {
		if _, err := e.Extract(ctx, ExtractArgs{ManifestPath: m, Reason: reason}); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Normalize(ctx, NormalizeArgs{ManifestPath: m, Reason: reason}); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Validate(ctx, ValidateArgs{ManifestPath: m, OfflineFixturesPath: fixtures, Reason: reason}, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := e.GateC(ctx, GateCArgs{ManifestPath: m, Reason: reason}); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Render(ctx, RenderArgs{ManifestPath: m, Reason: reason}); err != nil {
			b.Fatal(err)
		}
	}
}

// The stage benchmarks below give the split of the pipeline's time.

func BenchmarkStageExtract(b *testing.B) {
	e, run := benchRun(b)
	b.ResetTimer()
	for range b.N {
		if _, err := e.extract(context.Background(), run, true, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageNormalize(b *testing.B) {
	e, run := benchRun(b)
	x, err := e.extract(context.Background(), run, true, nil, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := normalize(run.Manifest.RunID, x.unique); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageCollationSort(b *testing.B) {
	e, run := benchRun(b)
	x, err := e.extract(context.Background(), run, true, nil, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		s := append([]string(nil), x.unique...)
		icu.Sort(s)
	}
}

func BenchmarkStageWrite(b *testing.B) {
	e, run := benchRun(b)
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: run.ManifestPath}, nil); err != nil {
		b.Fatal(err)
	}
	var files []pendingWrite
	_ = filepath.WalkDir(filepath.Join(run.Root, "citations"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, rerr := os.ReadFile(p)
			if rerr == nil {
				files = append(files, pendingWrite{path: p, message: "write", data: data})
			}
		}
		return nil
	})
	b.ResetTimer()
	for range b.N {
		if err := e.commit(context.Background(), run, files, nil); err != nil {
			b.Fatal(err)
		}
	}
}
