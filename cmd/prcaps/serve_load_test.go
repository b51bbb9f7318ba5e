package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for prcaps in a child process
// (PRCAPS_TEST_AS_CLI=1), so that a test can measure a real server's
// resident memory from the outside.
func TestMain(m *testing.M) {
	if os.Getenv("PRCAPS_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// procKiB reads a field (VmRSS, VmHWM) of /proc/PID/status in KiB.
func procKiB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

// The server's memory contract, measured from outside on a real process:
// 16 clients send requests that each respect every limit (one MUTAG-like
// graph of 15,000 nodes, about 110 MiB of estimated work, and small ones)
// to prcaps serve --max-memory 256MiB, bounded in count and time on
// loopback. Every answer is 200, or 503 with Retry-After; /healthz answers
// within a second throughout; the peak resident memory (VmHWM) stays under
// the resident memory at start plus the budget plus the 256 MiB of runtime
// headroom the soft memory limit allows; and after the load the resident
// memory comes back down.
func TestServeMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	ck := filepath.Join(t.TempDir(), "mutag.safetensors")
	if code, _, errOut := runCLI("train", "--dataset", "mutag", "--data", "", "--epochs", "1", "--only-folds", "1", "--save", ck, "--quiet"); code != 0 {
		t.Fatalf("train --save: exit %d: %s", code, errOut)
	}
	const budgetMiB = 256
	cmd := exec.Command(os.Args[0], "serve", "--model", ck, "--addr", "127.0.0.1:0",
		"--max-memory", fmt.Sprintf("%dMiB", budgetMiB), "--queue-wait", "500ms", "--timeout", "20s")
	cmd.Env = append(os.Environ(), "PRCAPS_TEST_AS_CLI=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	url := ""
	for url == "" && lines.Scan() {
		url = regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(lines.Text())
	}
	if url == "" {
		t.Fatal("no address announced")
	}
	go io.Copy(io.Discard, stderr)
	pid := cmd.Process.Pid
	graph := func(n int) map[string]any {
		edges := make([][2]int, n-1)
		for i := range edges {
			edges[i] = [2]int{i, i + 1}
		}
		return map[string]any{"nodes": n, "edges": edges, "node_labels": make([]int, n)}
	}
	heavy, _ := json.Marshal(map[string]any{"graphs": []any{graph(15_000)}})
	small, _ := json.Marshal(map[string]any{"graphs": []any{graph(17), graph(20), graph(25)}})
	post := func(body []byte) (int, string) {
		resp, err := http.Post(url+"/predict", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	if code, _ := post(small); code != 200 {
		t.Fatalf("a small request: %d", code)
	}
	startRSS, err := procKiB(pid, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	deadline := time.Now().Add(8 * time.Second)
	for c := 0; c < 16; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 8 && time.Now().Before(deadline); i++ {
				body := heavy
				if (c+i)%4 == 3 {
					body = small
				}
				code, retry := post(body)
				mu.Lock()
				codes[code]++
				mu.Unlock()
				if code != 200 && (code != 503 || retry == "") {
					t.Errorf("answer %d (Retry-After %q)", code, retry)
				}
			}
		}()
	}
	stop := make(chan struct{})
	healthDone := make(chan time.Duration)
	go func() {
		var slowest time.Duration
		defer func() { healthDone <- slowest }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(25 * time.Millisecond):
			}
			start := time.Now()
			resp, err := http.Get(url + "/healthz")
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("healthz: %v %v", resp, err)
				return
			}
			resp.Body.Close()
			slowest = max(slowest, time.Since(start))
		}
	}()
	wg.Wait()
	close(stop)
	slowest := <-healthDone
	peak, err := procKiB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	after, _ := procKiB(pid, "VmRSS")
	limit := startRSS + (budgetMiB+256)<<10
	t.Logf("answers %v; healthz at most %v; resident memory %d MiB at start, peak %d MiB (limit %d MiB), %d MiB after",
		codes, slowest, startRSS>>10, peak>>10, limit>>10, after>>10)
	if codes[200] == 0 {
		t.Errorf("no request served: %v", codes)
	}
	if slowest > time.Second {
		t.Errorf("healthz took up to %v under load", slowest)
	}
	if peak > limit {
		t.Errorf("peak resident memory %d MiB, over the %d MiB at start plus the budget and headroom", peak>>10, startRSS>>10)
	}
	if after > startRSS+128<<10 {
		t.Errorf("resident memory %d MiB after the load, %d MiB at start", after>>10, startRSS>>10)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), "signal") {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("serve did not stop after SIGTERM")
	}
}
