//go:build unix

package sysproc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/poll"
)

// waitUntil polls cond until it holds or a generous deadline passes; the
// deadline only stops a broken test, it bounds no behaviour.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := poll.Until(t.Context(), poll.Options{Interval: 20 * time.Millisecond, Within: 30 * time.Second},
		func(context.Context) bool { return cond() }); err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}

func TestTreeKillReachesGrandchildren(t *testing.T) {
	mark := fmt.Sprintf("cdpkit-tree-test-%d", os.Getpid())
	cmd := exec.Command("/bin/sh", "-c", "(sleep 300; : "+mark+") & (sleep 300; : "+mark+") & wait")
	tree := NewTree(cmd)
	if err := tree.Start(); err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	waitUntil(t, "both children run", func() bool { return len(Matching(mark)) >= 2 })
	if err := tree.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	cmd.Wait()
	waitUntil(t, "no child is left", func() bool { return len(Matching(mark)) == 0 })
}

// TestWatchdogKillsGroupWhenOwnerDies kills a helper process with SIGKILL
// and checks that the process group it watched dies with it: the macOS
// path, exercised on Linux.
func TestWatchdogKillsGroupWhenOwnerDies(t *testing.T) {
	if os.Getenv("CDPKIT_WATCHDOG_HELPER") == "1" {
		watchdogHelper()
		return
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestWatchdogKillsGroupWhenOwnerDies$")
	helper.Env = append(os.Environ(), "CDPKIT_WATCHDOG_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		helper.Process.Kill()
		helper.Wait()
		t.Fatalf("reading the helper's sleeper pid: %v", err)
	}
	sleeper, err := strconv.Atoi(line[:len(line)-1])
	if err != nil {
		t.Fatalf("helper said %q", line)
	}
	defer KillGroup(sleeper) // only if the test fails
	if !Alive(sleeper) {
		t.Fatalf("sleeper %d is not running", sleeper)
	}
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	waitUntil(t, "the watched group is gone", func() bool { return gone(sleeper) })
}

// gone reports whether pid has exited: no such process, or a zombie that
// its parent (perhaps a container's init that never reaps) has not reaped.
func gone(pid int) bool {
	if !Alive(pid) {
		return true
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && State(string(stat)) == 'Z'
}

// watchdogHelper starts a sleeper in its own group, watches it, prints its
// pid and waits to be killed.
func watchdogHelper() {
	sleeper := exec.Command("sleep", "300")
	SetGroup(sleeper, 0)
	if err := sleeper.Start(); err != nil {
		os.Exit(2)
	}
	if _, err := StartWatchdog(sleeper.Process.Pid); err != nil {
		os.Exit(3)
	}
	go sleeper.Wait()
	fmt.Println(sleeper.Process.Pid)
	select {}
}

func TestWatchdogStopLeavesGroup(t *testing.T) {
	sleeper := exec.Command("sleep", "300")
	SetGroup(sleeper, 0)
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { KillGroup(sleeper.Process.Pid); sleeper.Wait() }()
	dog, err := StartWatchdog(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dog.Stop()
	if !Alive(sleeper.Process.Pid) {
		t.Error("Stop killed the watched group; want it left alone")
	}
	dog2, err := StartWatchdog(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dog2.Trigger()
	waitUntil(t, "Trigger kills the group", func() bool { return gone(sleeper.Process.Pid) })
}
