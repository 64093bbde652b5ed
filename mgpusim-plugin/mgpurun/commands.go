package mgpurun

import (
	"sync"

	"github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/akita/v4/tracing"
)

const kernelCommand = "*driver.LaunchUnifiedMultiGPUKernelCommand"

// commandSpan follows the driver's commands (copies and kernel launches):
// when the last one ended and how many kernels were launched. The end of the
// last command, not the engine's clock when the program returns, is the
// run's length: the engine may have moved on by then.
type commandSpan struct {
	clock    sim.TimeTeller
	mu       sync.Mutex
	lastEnd  sim.VTimeInSec
	kernels  int
	inFlight map[string]bool
}

func newCommandSpan(clock sim.TimeTeller) *commandSpan {
	return &commandSpan{clock: clock, inFlight: map[string]bool{}}
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
}

func (c *commandSpan) StepTask(tracing.Task)          {}
func (c *commandSpan) AddMilestone(tracing.Milestone) {}

func (c *commandSpan) snapshot() (sim.VTimeInSec, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastEnd, c.kernels
}
