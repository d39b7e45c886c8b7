package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// setupNetns brings lo up and puts addr on it. It refuses to touch a
// namespace that has other interfaces (the host's own network) unless
// shared is set: the address is a public one, and adding it to the real
// lo would hide it from every program of the machine.
func setupNetns(addr string, shared bool) error {
	// /proc/net/dev lists this namespace's interfaces (/sys/class/net may
	// still show the parent's under unshare -n).
	raw, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		return err
	}
	var others []string
	for _, line := range strings.Split(string(raw), "\n") {
		name, _, ok := strings.Cut(line, ":")
		if name = strings.TrimSpace(name); ok && name != "lo" {
			others = append(others, name)
		}
	}
	if len(others) > 0 && !shared {
		return fmt.Errorf("this network namespace has interfaces %v besides lo: run under `unshare -n` (as root), or pass -shared-netns", others)
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %w: %s", err, out)
	}
	out, err := exec.Command("ip", "addr", "add", addr+"/32", "dev", "lo").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "File exists") {
		return fmt.Errorf("ip addr add %s/32 dev lo: %w: %s", addr, err, out)
	}
	return nil
}
