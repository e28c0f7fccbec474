package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// serverProc is the DebtQL server as a child process.
type serverProc struct {
	c    *common
	cmd  *exec.Cmd
	done chan struct{}
}

// start runs the server and waits until /readyz answers 200.
func (s *serverProc) start(ctx context.Context) error {
	log, err := os.OpenFile(s.c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(s.c.serverBin, "serve", "--addr", s.c.addr, "--database-url", s.c.dsn,
		"--rate-limit", "0", "--log-format", "json", "--tz", "Europe/Stockholm")
	// The webhook fault's receiver listens on 127.0.0.1 over http.
	cmd.Env = append(os.Environ(), "ADMIN_API_KEY="+adminKey, "DEBTQL_WEBHOOK_ALLOW_INSECURE=true")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(s.done) }()
	if s.c.pidFile != "" {
		_ = os.WriteFile(s.c.pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
	}
	hc := &http.Client{Timeout: 2 * time.Second}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !s.alive() {
			return fmt.Errorf("the server exited at start; see %s", s.c.logPath)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if resp, err := hc.Get("http://" + s.c.addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("the server was not ready within 30 s; see %s", s.c.logPath)
}

// alive reports whether the process is still running.
func (s *serverProc) alive() bool {
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// kill9 sends SIGKILL and waits for the process to be gone.
func (s *serverProc) kill9() {
	if !s.alive() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// stop ends the server with SIGTERM (SIGKILL after 20 s).
func (s *serverProc) stop() {
	if !s.alive() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.kill9()
	}
	if s.c.pidFile != "" {
		_ = os.Remove(s.c.pidFile)
	}
}
