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

// checkLoopback refuses an address whose host is not a loopback IP: profiles show the
// process's internals and cost CPU to take, so they are served to this machine only (from a
// pod, kubectl port-forward reaches them).
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not on a loopback address (for example 127.0.0.1:6060 or [::1]:6060): profiles are served to this machine only", addr)
	}
	return nil
}

// startProfiling serves net/http/pprof's handlers under /debug/pprof/ on addr, a listener of
// their own: the API listeners never serve them.
func startProfiling(addr string, log *slog.Logger) (*http.Server, error) {
	if err := checkLoopback(addr); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("profiling listener stopped", "error", err)
		}
	}()
	log.Info("profiling", "addr", l.Addr().String())
	return s, nil
}
