package fleet_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/fleet"
	"github.com/citegate/citegate/engine/fleet/fleettest"
)

// holderEnv names the Redis a helper process holds a lease and a host slot
// on before it is killed.
const holderEnv = "CITEGATE_FLEET_HOLDER_URL"

// TestHelperHolder is the process TestKilledHolderBlocksNobody kills: it
// takes the lease on "h" and the only slot of example.org, says so, and
// waits to be killed. It does nothing in a normal test run.
func TestHelperHolder(t *testing.T) {
	url := os.Getenv(holderEnv)
	if url == "" {
		t.Skip("helper process only")
	}
	addr, err := fleet.ParseAddr(url)
	if err != nil {
		t.Fatal(err)
	}
	s, err := fleet.Open(bg, addr, "fleet", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.LeaseTTL = time.Second
	h := fleet.NewHosts(s, 1, 0)
	h.SlotTTL = time.Second
	if s.Await(bg, "h") == nil {
		t.Fatal("no lease")
	}
	if _, err := h.Acquire(bg, "example.org"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
}

// TestKilledHolderBlocksNobody: a process SIGKILLed while it holds a URL's
// lease and a host's only slot (renewing both) blocks the others for no
// longer than the TTLs: the lease and the slot expire.
func TestKilledHolderBlocksNobody(t *testing.T) {
	srv := fleettest.New(t, "")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$", "-test.count=1")
	cmd.Env = append(os.Environ(), holderEnv+"="+srv.URL())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		_ = cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	s, _ := open(t, srv.URL())
	h := fleet.NewHosts(s, 1, 0)
	// Alive, the holder keeps both past their TTL.
	time.Sleep(1500 * time.Millisecond)
	if srv.Client().Exists(bg, fleet.LeaseKey("h")).Val() != 1 {
		t.Fatal("the live holder's lease expired")
	}
	_ = cmd.Process.Kill() // SIGKILL: no release, no cleanup
	_ = cmd.Wait()
	killed := time.Now()
	if r := s.Await(bg, "h"); r != nil {
		t.Fatal("got the lease while the dead holder's had not expired yet")
	}
	release, err := h.Acquire(bg, "example.org")
	if err != nil {
		t.Fatal(err)
	}
	release()
	if d := time.Since(killed); d > 2*time.Second {
		t.Errorf("blocked %v after the holder died, want at most the 1 s TTL (and polling)", d)
	}
	if r := s.Await(bg, "h"); r == nil {
		t.Error("no lease after the dead holder's expired")
	} else {
		r()
	}
}
