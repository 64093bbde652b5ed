package mgpurun

import (
	"time"

	"github.com/sarchlab/akita/v4/sim"
)

const (
	// unstallPeriod is how long simulated time may stand still (wall time)
	// before the watchdog runs the engine.
	unstallPeriod = 200 * time.Millisecond
	// deadlockAfter is how long simulated time may stand still, with the
	// engine run again and again, before the run counts as deadlocked: no
	// event pending while the program waits for the GPUs. The benchmarks'
	// host code between commands takes milliseconds.
	deadlockAfter = 5 * time.Minute
)

// unstall works around a lost wake-up in MGPUSim v4.2.0's driver
// (amd/driver/driver.go, runAsync and runEngine): a command the program
// enqueues while the engine's goroutine is returning leaves its tick event in
// the queue with no goroutine to run it, and the program waits forever (seen
// here under load: a run stuck for 9 minutes in the driver's select). The
// serial engine serialises Run calls (its singleRunLock), so running it again
// when simulated time has stood still is harmless when nothing is pending and
// wakes the run when something is. When time stands still for deadlockAfter
// the simulation itself is stuck: deadlocked is called with the cycle (and
// the run should end). It returns when done is closed.
func unstall(engine *sim.SerialEngine, done <-chan struct{}, deadlocked func(cycle uint64)) {
	ticker := time.NewTicker(unstallPeriod)
	defer ticker.Stop()
	last, since := engine.CurrentTime(), time.Now()
	for {
		select {
		case <-done:
			return
		case <-ticker.C:
			if engine.CurrentTime() != last {
				last, since = engine.CurrentTime(), time.Now()
				continue
			}
			_ = engine.Run()
			if engine.CurrentTime() != last {
				last, since = engine.CurrentTime(), time.Now()
			} else if time.Since(since) > deadlockAfter {
				deadlocked(cycles(last))
				return
			}
		}
	}
}
