package mgpurun

import (
	"sync"
	"time"

	"github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/akita/v4/tracing"
)

const kernelCommand = "*driver.LaunchUnifiedMultiGPUKernelCommand"

// commandSpan follows the driver's commands (copies and kernel launches):
// when the last one ended and how many kernels were launched. The end of the
// last command, not the engine's clock when the program returns, is the
// run's length: the engine may have moved on by then.
//
// MGPUSim's driver dequeues a finished command, which wakes the program,
// before it ends the command's trace task (amd/driver/driver.go,
// processLaunchKernelReturn: Dequeue, then logCmdComplete), so the program can
// return before the last kernel's end is seen; settled waits for it.
type commandSpan struct {
	clock    sim.TimeTeller
	mu       sync.Mutex
	idle     *sync.Cond // signalled when the last command in flight ends
	lastEnd  sim.VTimeInSec
	kernels  int
	inFlight map[string]bool
}

func newCommandSpan(clock sim.TimeTeller) *commandSpan {
	c := &commandSpan{clock: clock, inFlight: map[string]bool{}}
	c.idle = sync.NewCond(&c.mu)
	return c
}

func (c *commandSpan) StartTask(task tracing.Task) {
	if task.Kind != "Driver Command" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight[task.ID] = true
	if task.What == kernelCommand {
		c.kernels++
	}
}

func (c *commandSpan) EndTask(task tracing.Task) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.inFlight[task.ID] {
		return
	}
	delete(c.inFlight, task.ID)
	if now := c.clock.CurrentTime(); now > c.lastEnd {
		c.lastEnd = now
	}
	if len(c.inFlight) == 0 {
		c.idle.Broadcast()
	}
}

func (c *commandSpan) StepTask(tracing.Task)          {}
func (c *commandSpan) AddMilestone(tracing.Milestone) {}

// settled waits until no command is in flight (at most timeout, wall time)
// and returns the end of the last command and the number of kernel launches;
// ok is false when a command was still in flight at the timeout.
func (c *commandSpan) settled(timeout time.Duration) (end sim.VTimeInSec, kernels int, ok bool) {
	timer := time.AfterFunc(timeout, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.idle.Broadcast()
	})
	defer timer.Stop()
	deadline := time.Now().Add(timeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.inFlight) > 0 && time.Now().Before(deadline) {
		c.idle.Wait()
	}
	return c.lastEnd, c.kernels, len(c.inFlight) == 0
}
