package platform

import (
	"testing"

	"github.com/sarchlab/akita/v4/mem/vm"
)

const gb = uint64(1) << 30

func page(vAddr, pAddr uint64) vm.Page {
	return vm.Page{PID: 1, VAddr: vAddr, PAddr: pAddr, PageSize: 4096, Valid: true, DeviceID: 1}
}

// Consecutive virtual pages the driver put on GPU 1 land on GPUs 1, 2, 3,
// 4, 1, ... (virtual page number mod 4), and every translation sees that.
func TestPagesRotateOverTheGPUs(t *testing.T) {
	table := newInterleavedPageTable(vm.NewPageTable(12), 12, 4, 4*gb)
	for i := uint64(0); i < 8; i++ {
		table.Insert(page(0x10000+i*4096, 4*gb+i*4096))
	}
	for i := uint64(0); i < 8; i++ {
		got, ok := table.Find(1, 0x10000+i*4096)
		wantGPU := 1 + int((0x10000/4096+i)%4)
		if !ok || table.gpuOf(got.PAddr) != wantGPU || got.DeviceID != uint64(wantGPU) {
			t.Errorf("page %d: %#x on GPU %d (device %d), want GPU %d", i, got.PAddr, table.gpuOf(got.PAddr), got.DeviceID, wantGPU)
		}
	}
}

// The driver remapping a page (its Distribute) keeps the page's frame, so
// data copied before and after stays in one place; host pages stay put.
func TestRemapsKeepTheFrameAndHostPagesStay(t *testing.T) {
	table := newInterleavedPageTable(vm.NewPageTable(12), 12, 4, 4*gb)
	table.Insert(page(0x5000, 4*gb))
	first, _ := table.Find(1, 0x5000)
	table.Update(page(0x5000, 8*gb+0x3000))
	again, _ := table.Find(1, 0x5000)
	if again.PAddr != first.PAddr {
		t.Errorf("remapped page moved from %#x to %#x", first.PAddr, again.PAddr)
	}
	table.Insert(page(0x9000, 0x2000))
	host, _ := table.Find(1, 0x9000)
	if host.PAddr != 0x2000 {
		t.Errorf("host page moved to %#x", host.PAddr)
	}
}

// The interleaved frames grow down from the top of each GPU's memory; when
// they reach the driver's own frames, the run stops instead of aliasing.
func TestFullGPUMemoryStopsTheRun(t *testing.T) {
	table := newInterleavedPageTable(vm.NewPageTable(12), 12, 1, 2*4096)
	table.Insert(page(0x1000, 2*4096)) // the driver's first frame on GPU 1
	defer func() {
		if recover() == nil {
			t.Error("a second page found a frame in a GPU memory of two frames, one the driver's")
		}
	}()
	table.Insert(page(0x2000, 2*4096+4096))
}
