package ui

import (
	"bytes"
	"sync"
)

// syncBuffer is a bytes.Buffer safe for the terminal UI's writer goroutine
// and the test's reader; Read drains, as teatest.WaitFor expects. (ui/tui's
// tests keep their own: test helpers are not exported across packages.)
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Read(p)
}
