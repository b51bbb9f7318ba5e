package serve_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/prcaps/prcaps/serve"
)

// BenchmarkServeMUTAG measures the server's throughput on MUTAG-sized
// requests over loopback: parallel clients each post ten of MUTAG's graphs
// a request (the whole HTTP path: decoding, admission, encoding, the
// forward pass, the answer). One op is one request of ten graphs.
func BenchmarkServeMUTAG(b *testing.B) {
	p, ds := predictor(b, "mutag")
	srv := newServer(b, p, serve.Limits{})
	defer srv.Close()
	graphs := mutagGraphs(ds)
	bodies := make([][]byte, 0, len(graphs)/10)
	for lo := 0; lo+10 <= len(graphs); lo += 10 {
		body, err := json.Marshal(serve.GraphRequest{Graphs: graphs[lo : lo+10]})
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := srv.Client()
		i := 0
		for pb.Next() {
			resp, err := c.Post(srv.URL+"/predict", "application/json", bytes.NewReader(bodies[i%len(bodies)]))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N*10)/b.Elapsed().Seconds(), "graphs/s")
}
