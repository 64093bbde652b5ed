package platform

import (
	"fmt"
	"sync"

	"github.com/sarchlab/akita/v4/mem/vm"
)

// interleavedPageTable places GPU memory in 4 KB pages that rotate over the
// GPUs, as "Exploiting Adaptive Data Compression ..." (§VI-A) lays memory
// out: "interleaving 4 KB pages over the 32 memory controllers (8 for each
// GPU)". MGPUSim's unified GPU does not: the benchmarks' Distribute call
// remaps each buffer whole onto one GPU (amd/driver/distributor.go and the
// unified device's allocateMultiplePages), so every remote access of a
// program goes to the one or two GPUs that hold its buffers.
//
// It is the page table every translation goes through (the driver's copies,
// the MMU's page walks): a page the driver maps on any GPU is given a frame
// on GPU 1 + (virtual page number mod GPUs) instead, the same frame for the
// same virtual page whenever the driver maps it again. Its frames come from
// the top of each GPU's memory down; the driver's allocator hands out frames
// from the bottom up, and the two must not meet.
type interleavedPageTable struct {
	vm.PageTable
	log2PageSize uint64
	gpus         int
	gpuMemBytes  uint64

	mu          sync.Mutex
	frames      map[frameKey]uint64 // virtual page -> our frame
	nextFrame   []uint64            // per GPU (index 0 = GPU 1): the next free frame, downward
	driverFloor []uint64            // per GPU: above the highest frame the driver handed out
}

type frameKey struct {
	pid   vm.PID
	vAddr uint64
}

func newInterleavedPageTable(inner vm.PageTable, log2PageSize uint64, gpus int, gpuMemBytes uint64) *interleavedPageTable {
	t := &interleavedPageTable{
		PageTable:    inner,
		log2PageSize: log2PageSize,
		gpus:         gpus,
		gpuMemBytes:  gpuMemBytes,
		frames:       map[frameKey]uint64{},
	}
	for i := 1; i <= gpus; i++ {
		t.nextFrame = append(t.nextFrame, uint64(i+1)*gpuMemBytes-(1<<log2PageSize))
		t.driverFloor = append(t.driverFloor, uint64(i)*gpuMemBytes)
	}
	return t
}

// Insert maps a page, on its interleaved GPU when the driver put it on one.
func (t *interleavedPageTable) Insert(page vm.Page) { t.PageTable.Insert(t.place(page)) }

// Update remaps a page, keeping its interleaved frame.
func (t *interleavedPageTable) Update(page vm.Page) { t.PageTable.Update(t.place(page)) }

func (t *interleavedPageTable) place(page vm.Page) vm.Page {
	gpu := t.gpuOf(page.PAddr)
	if gpu == 0 {
		return page // host memory stays where the driver put it
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	floor := &t.driverFloor[gpu-1]
	if end := page.PAddr + page.PageSize; end > *floor {
		*floor = end
	}
	key := frameKey{page.PID, page.VAddr}
	frame, ok := t.frames[key]
	if !ok {
		target := 1 + int(page.VAddr>>t.log2PageSize)%t.gpus
		frame = t.nextFrame[target-1]
		if frame < t.driverFloor[target-1] {
			panic(fmt.Sprintf("interleaved pages: GPU %d's memory is full", target))
		}
		t.nextFrame[target-1] -= 1 << t.log2PageSize
		t.frames[key] = frame
	}
	page.PAddr = frame
	page.DeviceID = uint64(t.gpuOf(frame))
	return page
}

// gpuOf is the GPU a physical address is on (0: host memory).
func (t *interleavedPageTable) gpuOf(pAddr uint64) int {
	gpu := int(pAddr / t.gpuMemBytes)
	if gpu < 1 || gpu > t.gpus {
		return 0
	}
	return gpu
}
