package mgpurun

import (
	"time"

	"github.com/sarchlab/akita/v4/sim"
)

// unstallPeriod is how long simulated time may stand still (wall time)
// before the watchdog runs the engine.
const unstallPeriod = 200 * time.Millisecond

// unstall works around a lost wake-up in MGPUSim v4.2.0's driver
// (amd/driver/driver.go, runAsync and runEngine): a command the program
// enqueues while the engine's goroutine is returning leaves its tick event in
// the queue with no goroutine to run it, and the program waits forever (seen
// here under load: a run stuck for 9 minutes in the driver's select). The
// serial engine serialises Run calls (its singleRunLock), so running it again
// when simulated time has stood still is harmless when nothing is pending and
// wakes the run when something is. It returns when done is closed.
func unstall(engine *sim.SerialEngine, done <-chan struct{}) {
	ticker := time.NewTicker(unstallPeriod)
	defer ticker.Stop()
	last := engine.CurrentTime()
	for {
		select {
		case <-done:
			return
		case <-ticker.C:
			now := engine.CurrentTime()
			if now == last {
				_ = engine.Run()
			}
			last = engine.CurrentTime()
		}
	}
}
