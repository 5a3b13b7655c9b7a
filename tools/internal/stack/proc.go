package stack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Proc is one supervised child process whose output lines are prefixed
// with its name.
type Proc struct {
	Name string
	Path string
	Env  []string
	Args []string

	logs io.Writer
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

var logMu sync.Mutex // keeps lines of different processes whole

// Start launches the process.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), p.Env...)
	// Own process group: Ctrl-C in the terminal reaches only the
	// supervisor, which then stops the children in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	prefix := fmt.Sprintf("[%s] ", p.Name)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			logMu.Lock()
			fmt.Fprintf(p.logs, "%s%s\n", prefix, sc.Bytes())
			logMu.Unlock()
		}
		err := cmd.Wait()
		if err != nil {
			logMu.Lock()
			fmt.Fprintf(p.logs, "%sexited: %v\n", prefix, err)
			logMu.Unlock()
		}
		close(done)
	}()
	return nil
}

// Pid is the process id of the running process (0 before Start).
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return true
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits up to grace before SIGKILL.
func (p *Proc) Stop(grace time.Duration) {
	p.signalAndWait(syscall.SIGTERM, grace)
}

// Kill ends the process at once (a crash, for fault tests).
func (p *Proc) Kill() {
	p.signalAndWait(syscall.SIGKILL, 5*time.Second)
}

// Restart starts the process again after it was stopped or killed.
func (p *Proc) Restart() error {
	if !p.Exited() {
		p.Stop(25 * time.Second)
	}
	return p.Start()
}

func (p *Proc) signalAndWait(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}
