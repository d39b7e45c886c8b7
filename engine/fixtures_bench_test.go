package engine

import (
	"path/filepath"
	"testing"

	"github.com/citegate/citegate/engine/internal/corpus"
)

// BenchmarkLoadFixtures reads the benchmark corpus's offline fixtures
// (~20,000 entries).
func BenchmarkLoadFixtures(b *testing.B) {
	dir := b.TempDir()
	if _, err := corpus.Generate(dir, corpus.Default); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "offline-fixtures.json")
	b.ResetTimer()
	for range b.N {
		if _, err := loadFixtures(path, "offline"); err != nil {
			b.Fatal(err)
		}
	}
}
