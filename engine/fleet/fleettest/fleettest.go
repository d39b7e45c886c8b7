// Package fleettest starts a real, throwaway redis-server for tests and
// benchmarks of engine/fleet: on a free loopback port, persisting nothing,
// in its own directory, stopped by Stop (or Kill, a SIGKILL, for fault
// tests).
package fleettest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one running redis-server.
type Server struct {
	// Port is its loopback port; Password what it requires ("" for none).
	Port     int
	Password string
	cmd      *exec.Cmd
	exited   chan struct{}
}

// RequireEnv, when set (.ci/run sets it), turns a missing redis-server
// into a failure instead of a skip, so CI cannot pass without the fleet
// tests.
const RequireEnv = "CITEGATE_REQUIRE_REDIS"

// Binary finds redis-server on PATH.
func Binary() (string, error) { return exec.LookPath("redis-server") }

// New starts a server for t and stops it when t ends; t is skipped (only)
// when no redis-server binary can be found.
func New(t testing.TB, password string) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("redis-server not found (%v) and %s is set: CI must run the fleet tests", err, RequireEnv)
		}
		t.Skip("redis-server not found: ", err, " (apt-get install redis-server)")
	}
	s, err := Start(bin, t.TempDir(), password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Start runs bin on a free loopback port with its files in dir.
func Start(bin, dir, password string) (*Server, error) {
	var last error
	for range 5 { // another process may take the port between probe and start
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--loglevel", "warning"}
		if password != "" {
			args = append(args, "--requirepass", password)
		}
		cmd := exec.CommandContext(context.Background(), bin, args...)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		s := &Server{Port: port, Password: password, cmd: cmd, exited: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(s.exited) }()
		if last = s.ready(); last == nil {
			return s, nil
		}
		s.Stop()
	}
	return nil, fmt.Errorf("redis-server did not start: %w", last)
}

// URL is the server's address for --cache and --fleet.
func (s *Server) URL() string {
	if s.Password != "" {
		return fmt.Sprintf("redis://:%s@127.0.0.1:%d/0", s.Password, s.Port)
	}
	return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port)
}

// Client is a direct client, for tests that look inside.
func (s *Server) Client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.Port), Password: s.Password, DisableIdentity: true})
}

// ready waits until the server answers PING.
func (s *Server) ready() error {
	c := s.Client()
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-s.exited:
			return errors.New("redis-server exited")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 5 s) and waits.
func (s *Server) Stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		s.Kill()
	}
}

// Kill SIGKILLs the server, as a crashed Redis, and waits for it.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

func freePort() (int, error) {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("not a TCP address: " + ln.Addr().String())
	}
	return a.Port, nil
}
