package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// prcaps serve on a loopback port answers /healthz, /model and /predict,
// and stops gracefully when told to.
func TestServeCLI(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "mutag.safetensors")
	if code, _, errOut := runCLI("train", "--dataset", "mutag", "--data", "", "--epochs", "2", "--only-folds", "1", "--save", ck, "--quiet"); code != 0 {
		t.Fatalf("train --save: exit %d: %s", code, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	old := stopContext
	stopContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { stopContext = old }()
	var stderr syncBuffer
	exit := make(chan int, 1)
	go func() { exit <- run([]string{"serve", "--model", ck, "--addr", "127.0.0.1:0"}, io.Discard, &stderr) }()
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		url = addr.FindString(stderr.String())
	}
	if url == "" {
		t.Fatalf("no address announced: %q", stderr.String())
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Post(url+"/predict", "application/json",
		strings.NewReader(`{"graphs":[{"nodes":3,"edges":[[0,1],[1,2]],"node_labels":[0,0,1]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"probs":[`) {
		t.Errorf("predict: %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case code := <-exit:
		if code != 0 || !strings.Contains(stderr.String(), "stopping") {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if code, _, errOut := runCLI("serve"); code != 2 || !strings.Contains(errOut, "--model FILE is required") {
		t.Errorf("serve without --model: %d %q", code, errOut)
	}
}
