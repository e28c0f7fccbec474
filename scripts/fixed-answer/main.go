// Command fixed-answer is the ceiling of any GraphQL server on the bench
// machine (docs/performance.md, "The ceiling of Q1"): it answers every POST
// with the bytes of one file, after reading the request's body, through
// the same HTTP stack as DebtQL (net/http). It does no work of its own, so
// the CPU that the load generator, the kernel and it spend a request is
// what any server's answer of that size costs at least, before its
// database's work. scripts/bench.sh ceiling runs it with Q1's answer.
//
//	fixed-answer -addr 127.0.0.1:8090 -body answer.json
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "address to listen on (loopback)")
	bodyFile := flag.String("body", "", "the file whose bytes every answer carries")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil || len(body) == 0 {
		fmt.Fprintf(os.Stderr, "fixed-answer: -body: a file with the answer's bytes is required (%v)\n", err)
		os.Exit(2)
	}
	length := strconv.Itoa(len(body))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the request as a server must before it can answer.
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "fixed-answer:", err)
		os.Exit(1)
	}
}
