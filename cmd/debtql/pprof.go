package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// startPprof serves Go's profiler (/debug/pprof/) on addr, for measuring
// under load (docs/performance.md). It is off unless DEBTQL_PPROF_ADDR is
// set, and it has its own mux: the API's handler never serves it. addr must
// be on loopback: the profiles reveal the program's internals.
func startPprof(addr string, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	// Loopback only: profiles reveal internals, and an operator reaches it
	// through an SSH tunnel or kubectl port-forward. No /cmdline: the
	// command line may hold --database-url with its password.
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("DEBTQL_PPROF_ADDR %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("DEBTQL_PPROF_ADDR %q: the profiler listens on loopback only (e.g. 127.0.0.1:6061)", addr)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("pprof server stopped", "error", err.Error())
		}
	}()
	log.Info("profiler listening (DEBTQL_PPROF_ADDR)", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
