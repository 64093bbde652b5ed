// Package platform builds the simulated multi-GPU machine: N AMD R9 Nano
// GPUs (MGPUSim's GCN3 timing model), a CPU-side driver and MMU, and the
// fabric between them, presented to programs as one unified GPU.
//
// Two fabrics:
//   - "bus": the fabric of "Exploiting Adaptive Data Compression to Improve
//     Performance and Energy-Efficiency of Compute Workloads in Multi-GPU
//     Systems" (Tavana et al., IPDPS 2019), §VI-B and Table VII (package
//     fabric), with that paper's GPU memory system (8 L2 banks of 256 KB and
//     8 DRAM channels per GPU) and memory layout (4 KB pages interleaved
//     over the GPUs).
//   - "pcie": MGPUSim's own platform unchanged (its timingconfig builder:
//     PCIe 4.0 x16 with a switch per two GPUs, 16 L2 banks and DRAM channels
//     per GPU), the reference the compression hook is checked against.
//
// Both run programs on a unified GPU (MGPUSim's `-unified-gpus`): the driver
// spreads a kernel's workgroups over every GPU's CUs, as the paper's §VI-A
// describes ("Workgroups are scheduled using a round robin scheme across all
// the CUs on all 4 GPUs"); MGPUSim gives each GPU a contiguous range of
// workgroups rather than dealing them out one by one.
package platform

import (
	"fmt"

	"github.com/sarchlab/akita/v4/mem/mem"
	"github.com/sarchlab/akita/v4/mem/vm"
	"github.com/sarchlab/akita/v4/mem/vm/mmu"
	"github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/akita/v4/simulation"
	"github.com/sarchlab/mgpusim/v4/amd/driver"
	"github.com/sarchlab/mgpusim/v4/amd/samples/runner/timingconfig"
	"github.com/sarchlab/mgpusim/v4/amd/samples/runner/timingconfig/r9nano"
	"github.com/sarchlab/mgpusim/v4/amd/sampling"
	"github.com/sarchlab/mgpusim/v4/amd/timing/rdma"

	"memzip/mgpusim-plugin/fabric"
)

// Fabric names.
const (
	FabricBus  = "bus"
	FabricPCIe = "pcie"
)

// The GPU and host figures MGPUSim's R9 Nano platform uses; the bus platform
// keeps them so the two differ only where the paper says otherwise.
const (
	gpuMemBytes      = 4 * mem.GB
	log2PageSize     = 12
	cusPerGPU        = 64 // 16 shader arrays x 4 CUs (Table VII: 64 per GPU)
	pageWalkCycles   = 100
	d2hCycles        = 300
	h2dCycles        = 500
	paperMemoryBanks = 8 // Table VII: 8 DRAM channels, 8 L2 units of 256 KB per GPU
)

// Config chooses the machine.
type Config struct {
	GPUs        int
	Fabric      string        // FabricBus or FabricPCIe
	Bus         fabric.Config // the bus's shape (FabricBus only)
	MemoryBanks int           // L2 banks and DRAM channels per GPU (FabricBus only; 0: the paper's 8)
	Parallel    bool          // Akita's parallel engine
	// InterleavePages places GPU memory in 4 KB pages rotating over the
	// GPUs, the paper's layout (FabricBus only; see interleavedPageTable);
	// off, MGPUSim places each buffer whole on one GPU.
	InterleavePages bool
	// InvalidateL1AtLaunch empties every L1 vector cache when a kernel
	// launch reaches its GPU, as GCN hardware does and MGPUSim does not
	// (see l1Invalidator); off, a multi-kernel program may read stale lines.
	InvalidateL1AtLaunch bool
	// RecorderPath is where Akita's data recorder writes its SQLite file.
	RecorderPath string
}

// PaperConfig is the paper's machine: 4 GPUs on the §VI-B bus.
func PaperConfig() Config {
	return Config{GPUs: 4, Fabric: FabricBus, Bus: fabric.PaperConfig(), MemoryBanks: paperMemoryBanks,
		InterleavePages: true, InvalidateL1AtLaunch: true}
}

// mgpusimMemoryBanks is what MGPUSim's own R9 Nano platform (FabricPCIe)
// gives each GPU: 16 L2 banks of 128 KB and 16 DRAM channels.
const mgpusimMemoryBanks = 16

// L2Banks is the number of L2 banks (and DRAM channels) per GPU the
// platform builds.
func (c Config) L2Banks() int {
	switch {
	case c.Fabric == FabricPCIe:
		return mgpusimMemoryBanks
	case c.MemoryBanks == 0:
		return paperMemoryBanks
	default:
		return c.MemoryBanks
	}
}

// Validate names the first setting that cannot work.
func (c Config) Validate() error {
	if c.GPUs < 1 || c.GPUs > 64 {
		return fmt.Errorf("gpus must be 1..64, got %d", c.GPUs)
	}
	switch c.Fabric {
	case FabricBus:
		if c.MemoryBanks < 0 || c.MemoryBanks&(c.MemoryBanks-1) != 0 {
			return fmt.Errorf("memory banks must be a power of two, got %d", c.MemoryBanks)
		}
		return c.Bus.Validate()
	case FabricPCIe:
		return nil
	default:
		return fmt.Errorf("fabric must be %q or %q, got %q", FabricBus, FabricPCIe, c.Fabric)
	}
}

// Platform is a built machine.
type Platform struct {
	Simulation *simulation.Simulation
	Driver     *driver.Driver
	// RDMAs are the GPUs' RDMA engines, GPU 1 first: every byte that moves
	// between GPUs passes through them.
	RDMAs []*rdma.Comp
	Bus   *fabric.Bus // nil on FabricPCIe
	// UnifiedGPU is the device id programs select: all GPUs as one.
	UnifiedGPU int
}

// GPUName is the name MGPUSim gives GPU i (1-based).
func GPUName(i int) string { return fmt.Sprintf("GPU[%d]", i) }

// Build builds the machine. It panics only where MGPUSim's builders do.
func Build(cfg Config) (*Platform, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	simBuilder := simulation.MakeBuilder().WithoutMonitoring()
	if cfg.RecorderPath != "" {
		simBuilder = simBuilder.WithOutputFileName(cfg.RecorderPath)
	}
	if cfg.Parallel {
		simBuilder = simBuilder.WithParallelEngine()
	}
	s := simBuilder.Build()
	sampling.InitSampledEngine() // as MGPUSim's runner does before a timing platform

	p := &Platform{Simulation: s}
	if cfg.Fabric == FabricPCIe {
		timingconfig.MakeBuilder().WithSimulation(s).WithNumGPUs(cfg.GPUs).Build()
	} else {
		if err := buildBusPlatform(s, cfg, p); err != nil {
			return nil, err
		}
	}
	if cfg.InvalidateL1AtLaunch {
		if _, err := installL1Invalidation(s.GetComponentByName, cfg.GPUs); err != nil {
			return nil, err
		}
	}
	p.Driver = s.GetComponentByName("Driver").(*driver.Driver)
	for i := 1; i <= cfg.GPUs; i++ {
		p.RDMAs = append(p.RDMAs, s.GetComponentByName(GPUName(i)+".RDMA").(*rdma.Comp))
	}
	gpuIDs := make([]int, cfg.GPUs)
	for i := range gpuIDs {
		gpuIDs[i] = i + 1
	}
	p.UnifiedGPU = p.Driver.CreateUnifiedGPU(nil, gpuIDs)
	return p, nil
}

// buildBusPlatform assembles the same parts MGPUSim's timing platform has
// (host MMU and driver, R9 Nano GPUs, RDMA address tables), joined by the
// paper's bus instead of PCIe.
func buildBusPlatform(s *simulation.Simulation, cfg Config, p *Platform) error {
	engine := s.GetEngine()
	banks := cfg.L2Banks()
	storage := mem.NewStorage(uint64(cfg.GPUs+1) * gpuMemBytes)

	pageTable := vm.NewPageTable(log2PageSize)
	if cfg.InterleavePages {
		pageTable = newInterleavedPageTable(pageTable, log2PageSize, cfg.GPUs, gpuMemBytes)
	}
	mmuComp := mmu.MakeBuilder().
		WithEngine(engine).
		WithFreq(1 * sim.GHz).
		WithPageWalkingLatency(pageWalkCycles).
		WithLog2PageSize(log2PageSize).
		WithPageTable(pageTable).
		Build("MMU")
	s.RegisterComponent(mmuComp)

	gpuDriver := driver.MakeBuilder().
		WithEngine(engine).
		WithPageTable(pageTable).
		WithLog2PageSize(log2PageSize).
		WithGlobalStorage(storage).
		WithD2HCycles(d2hCycles).
		WithH2DCycles(h2dCycles).
		Build("Driver")
	s.RegisterComponent(gpuDriver)
	mmuComp.MigrationServiceProvider = gpuDriver.GetPortByName("MMU").AsRemote()

	bus, err := fabric.NewBus("Bus", engine, 1*sim.GHz, cfg.Bus)
	if err != nil {
		return err
	}
	s.RegisterComponent(bus)
	p.Bus = bus
	bus.PlugInEndpoint("CPU", []sim.Port{
		gpuDriver.GetPortByName("GPU"),
		gpuDriver.GetPortByName("MMU"),
		mmuComp.GetPortByName("Migration"),
		mmuComp.GetPortByName("Top"),
	})

	// Remote addresses map to the owning GPU's RDMA data port; bank 0 is the
	// CPU's memory, GPU i's memory starts at i x 4 GB.
	rdmaTable := &mem.BankedAddressPortMapper{BankSize: gpuMemBytes}
	rdmaTable.LowModules = append(rdmaTable.LowModules, sim.RemotePort("CPU"))

	gpuBuilder := r9nano.MakeBuilder().
		WithSimulation(s).
		WithMMU(mmuComp).
		WithLog2PageSize(log2PageSize).
		WithGlobalStorage(storage).
		WithNumMemoryBank(banks)
	for i := 1; i <= cfg.GPUs; i++ {
		gpu := gpuBuilder.
			WithGPUID(uint64(i)).
			WithMemAddrOffset(uint64(i) * gpuMemBytes).
			WithRDMAAddressMapper(rdmaTable).
			Build(GPUName(i))
		gpuDriver.RegisterGPU(gpu.GetPortByName("CommandProcessor"),
			driver.DeviceProperties{CUCount: cusPerGPU, DRAMSize: gpuMemBytes})
		rdmaTable.LowModules = append(rdmaTable.LowModules, gpu.GetPortByName("RDMAData").AsRemote())
		bus.PlugInEndpoint(GPUName(i), gpu.Ports())
	}
	return nil
}
