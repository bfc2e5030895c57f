package popout

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// Windows are the pop-out windows an app started, one per device: the
// window's side of the pop-out (app/api_mirror.go's PopOut opens one).
type Windows struct {
	mu    sync.Mutex
	procs map[string]*os.Process
	// Start starts a pop-out window (Start's default: this program again
	// with Env set; tests swap it).
	Start func(cfg Config) (*os.Process, error)
}

// Open starts a pop-out for id, closing the one it had; closed runs when
// the window is gone (closed by the person, or with the app).
func (p *Windows) Open(id string, cfg Config, closed func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.procs[id]; old != nil {
		_ = old.Kill()
	}
	run := p.Start
	if run == nil {
		run = start
	}
	proc, err := run(cfg)
	if err != nil {
		return fmt.Errorf("open the pop-out window: %w", err)
	}
	if p.procs == nil {
		p.procs = map[string]*os.Process{}
	}
	p.procs[id] = proc
	go func() { // reaped when the person closes it
		_, _ = proc.Wait()
		p.mu.Lock()
		last := p.procs[id] == proc
		if last {
			delete(p.procs, id)
		}
		p.mu.Unlock()
		if last {
			closed()
		}
	}()
	return nil
}

// Proc is the process of id's pop-out (nil: none).
func (p *Windows) Proc(id string) *os.Process {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.procs[id]
}

// CloseAll closes every pop-out (the app is closing).
func (p *Windows) CloseAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, proc := range p.procs {
		_ = proc.Kill()
		delete(p.procs, id)
	}
}

// start starts this program again as a pop-out window for cfg.
func start(cfg Config) (*os.Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	v, err := cfg.Encode()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), Env+"="+v)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Process, nil
}
