package mgpurun

import (
	"testing"
	"time"

	"github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/akita/v4/tracing"
)

type fixedClock struct{ now sim.VTimeInSec }

func (c *fixedClock) CurrentTime() sim.VTimeInSec { return c.now }

// MGPUSim's driver wakes the program before it ends the kernel command's
// trace task: settled must wait for that end, not report the copies' end.
func TestSettledWaitsForTheLastCommandsEnd(t *testing.T) {
	clock := &fixedClock{}
	span := newCommandSpan(clock)
	copyIn := tracing.Task{ID: "copy", Kind: "Driver Command", What: "*driver.MemCopyH2DCommand"}
	kernel := tracing.Task{ID: "kernel", Kind: "Driver Command", What: kernelCommand}
	span.StartTask(copyIn)
	clock.now = 10e-6
	span.EndTask(copyIn)
	span.StartTask(kernel)
	clock.now = 30e-6
	go func() {
		time.Sleep(20 * time.Millisecond) // the driver's EndTask, after the program woke
		span.EndTask(kernel)
	}()
	end, kernels, ok := span.settled(10 * time.Second)
	if !ok || end != 30e-6 || kernels != 1 {
		t.Fatalf("settled = %v, %d kernels, ok %v; want the kernel's end 3e-05, 1 kernel, ok", end, kernels, ok)
	}
}

// A command that never ends is reported, not hidden in the cycle count.
func TestSettledReportsACommandThatNeverEnds(t *testing.T) {
	span := newCommandSpan(&fixedClock{})
	span.StartTask(tracing.Task{ID: "kernel", Kind: "Driver Command", What: kernelCommand})
	if _, _, ok := span.settled(50 * time.Millisecond); ok {
		t.Fatal("settled with a kernel command still in flight")
	}
}
