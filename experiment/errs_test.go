package experiment

import (
	"strings"
	"testing"
)

// A shard's and a bench's failures become one error naming each, and none
// is nil.
func TestFailureErrors(t *testing.T) {
	if err := (ShardPlan{}).Err(); err != nil {
		t.Errorf("a shard without failures: %v", err)
	}
	if err := (Result{}).Err(); err != nil {
		t.Errorf("a bench without failures: %v", err)
	}
	p := ShardPlan{Shard: Shard{I: 2, N: 3}, Log: "s2.jsonl", Failures: []string{"t2 gcn MUTAG fold 3: boom"}}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "shard 2/3: 1 failure(s)") || !strings.Contains(err.Error(), "s2.jsonl") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("shard error %v", err)
	}
	r := Result{Failures: []string{"a", "b"}}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "2 failure(s)") || !strings.Contains(err.Error(), "\n  b") {
		t.Errorf("bench error %v", err)
	}
}
