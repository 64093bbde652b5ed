package platform

import (
	"fmt"

	"github.com/sarchlab/akita/v4/mem/cache"
	"github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/mgpusim/v4/amd/protocol"
	"github.com/sarchlab/mgpusim/v4/amd/timing/cp"
)

// invalidatorPort is the name the L1 invalidations come from; no such port
// exists, and their acknowledgements are dropped before anyone looks for it.
const invalidatorPort = sim.RemotePort("memzip.KernelStartL1Invalidator")

// l1Invalidator empties every L1 vector cache of a GPU when a kernel launch
// reaches the GPU's command processor.
//
// A GCN GPU invalidates its L1 vector caches at a kernel's start (the AQL
// dispatch packet's acquire fence); MGPUSim v4.2.0's timing model does not:
// its command processor starts dispatching with no cache action, and its
// driver flushes the caches only before a copy into a buffer it marked dirty
// (amd/driver/memorycopy.go), which the copies of a launch's arguments never
// are. A kernel that reads what another CU wrote in an earlier kernel then
// hits stale lines in its own L1: BitonicSort (one kernel per pass) fails its
// own output check on every MGPUSim release from v3.0.0 (upstream issue
// sarchlab/mgpusim#150), and runs 10-15% fast on 4 GPUs, where a stale hit
// skips a remote read. Single-kernel programs are not affected.
//
// The invalidation is the writearound L1's own flush request, delivered to
// its control port when the launch request is delivered to the command
// processor (nothing of the previous kernel is in flight then); a middleware
// on each L1 drops the flush's acknowledgement, addressed to no port.
type l1Invalidator struct {
	caches  []sim.Port
	pending map[string]bool // flush IDs not yet acknowledged
	Flushes int
}

// installL1Invalidation hooks GPU i's command processor (named
// GPU[i].CommandProcessor) and L1 vector caches.
func installL1Invalidation(components func(name string) sim.Component, gpus int) ([]*l1Invalidator, error) {
	var all []*l1Invalidator
	for i := 1; i <= gpus; i++ {
		name := GPUName(i) + ".CommandProcessor"
		c, ok := components(name).(*cp.CommandProcessor)
		if !ok {
			return nil, fmt.Errorf("L1 invalidation: no command processor %s", name)
		}
		inv := &l1Invalidator{caches: c.L1VCaches, pending: map[string]bool{}}
		for _, port := range c.L1VCaches {
			owner, ok := port.Component().(interface{ AddMiddleware(sim.Middleware) })
			if !ok {
				return nil, fmt.Errorf("L1 invalidation: %s takes no middleware", port.Component().Name())
			}
			owner.AddMiddleware(&dropAcks{ctrl: port, inv: inv})
		}
		c.ToDriver.AcceptHook(inv)
		all = append(all, inv)
	}
	return all, nil
}

// Func sees every message delivered to the command processor.
func (inv *l1Invalidator) Func(ctx sim.HookCtx) {
	if ctx.Pos != sim.HookPosPortMsgRecvd {
		return
	}
	if _, launch := ctx.Item.(*protocol.LaunchKernelReq); !launch {
		return
	}
	for _, port := range inv.caches {
		flush := cache.FlushReqBuilder{}.WithSrc(invalidatorPort).WithDst(port.AsRemote()).Build()
		if err := port.Deliver(flush); err != nil {
			panic(fmt.Sprintf("L1 invalidation: %s refused a flush at a kernel launch", port.AsRemote()))
		}
		inv.pending[flush.ID] = true
		inv.Flushes++
	}
}

// dropAcks takes the acknowledgement of an invalidation out of an L1's
// control port before the connection would look for its (absent) receiver.
type dropAcks struct {
	ctrl sim.Port
	inv  *l1Invalidator
}

func (d *dropAcks) Tick() bool {
	rsp, ok := d.ctrl.PeekOutgoing().(*cache.FlushRsp)
	if !ok || !d.inv.pending[rsp.RspTo] {
		return false
	}
	d.ctrl.RetrieveOutgoing()
	delete(d.inv.pending, rsp.RspTo)
	return true
}
