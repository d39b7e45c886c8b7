package uitest

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for a program's writer goroutine and
// the test reading it; Read drains, as teatest.WaitFor expects.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Read(p)
}
