//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package desktop

import "github.com/gen2brain/shm"

// System V shared memory for MIT-SHM capture, where the OS has it.

func sysvGet(n int) (int, error)    { return shm.Get(shm.IPC_PRIVATE, n, shm.IPC_CREAT|0600) }
func sysvRm(id int) error           { return shm.Rm(id) }
func sysvAt(id int) ([]byte, error) { return shm.At(id, 0, 0) }
func sysvDt(data []byte) error      { return shm.Dt(data) }
