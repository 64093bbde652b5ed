// Package mgpurun runs one benchmark on the multi-GPU platform, with or
// without memzip's compression of inter-GPU payloads, measures it and
// writes its run directory (run.json, stats.json and optionally a payload
// trace) in the form memzip's other tools read.
package mgpurun

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/akita/v4/tracing"

	"memzip/mgpusim-plugin/linkcompress"
	"memzip/mgpusim-plugin/memzip"
	"memzip/mgpusim-plugin/platform"
	"memzip/mgpusim-plugin/workloads"
)

// DefaultFabricPJPerBit is the fabric's energy per bit: the middle of the
// 1-2 pJ/b the paper gives for an on-package (MCM) fabric, the setting of
// its Fig. 7 (§II, §VII-B).
const DefaultFabricPJPerBit = 1.5

// commandsSettle is how long (wall time) a run waits, after the program
// returns, for the driver to end its last command's trace task (it does so
// right after waking the program; see commandSpan).
const commandsSettle = 30 * time.Second

// Options is one run.
type Options struct {
	Benchmark   string
	Sizes       string // "name=value,..." over the benchmark's defaults
	Platform    platform.Config
	Compression linkcompress.Config
	// Check runs the benchmark's own output check (MGPUSim's Verify) after
	// the run. MGPUSim's checks end the process (log.Fatal) when the output
	// is wrong; run.json then says the check did not pass.
	Check bool
	// Seed seeds math/rand, which AES, BitonicSort and KMeans draw their
	// inputs from, so a run's inputs (and statistics) repeat.
	Seed           int64
	FabricPJPerBit float64
	OutDir         string // run directory, or "" for none
}

// Result is what a run measured.
type Result struct {
	Benchmark string
	Sizes     workloads.Sizes
	// Cycles is the time at least one kernel was running (1 GHz cycles),
	// as gpgpu-sim's cycle count is kernel time.
	Cycles uint64
	// TotalCycles runs to the end of the benchmark's last command: its
	// copies in, kernels and copies out (not the output check's copies).
	TotalCycles    uint64
	KernelLaunches int
	WallSeconds    float64
	CPUSeconds     float64
	Stats          StatsRecord
	Record         RunRecord
}

// Run builds the platform, installs the compression hook, runs the
// benchmark, writes the run directory and checks the output.
func Run(opts Options) (*Result, error) {
	w, err := workloads.Lookup(opts.Benchmark)
	if err != nil {
		return nil, err
	}
	sizes, err := w.ParseSizes(opts.Sizes)
	if err != nil {
		return nil, err
	}
	if opts.OutDir != "" {
		if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
			return nil, fmt.Errorf("-out %s: %w", opts.OutDir, err)
		}
	}
	start, startCPU := time.Now(), cpuSeconds()

	cfg := opts.Platform
	scratch, err := os.MkdirTemp("", "memzip-mgpu-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	cfg.RecorderPath = filepath.Join(scratch, "akita")
	p, err := platform.Build(cfg)
	if err != nil {
		return nil, err
	}
	rec := RunRecord{
		Codec: opts.Compression.Codec, Program: fmt.Sprintf("mgpusim/%s %s", w.Name, sizes),
		Benchmark: "mgpusim/" + w.Name, Sizes: sizes, Simulator: Simulator, GPUs: cfg.GPUs,
		Fabric: cfg.Fabric, Verify: opts.Compression.Verify && opts.Compression.Enabled(),
	}
	rec.Platform = platformRecord(cfg, opts.Compression)
	rec.CodecModel = rec.Platform.CodecModel
	hook, err := linkcompress.Install(p, opts.Compression, func(msg string) { stop(opts.OutDir, rec, msg) })
	if err != nil {
		return nil, err
	}
	defer hook.Close()
	if hook != nil {
		rec.CodecResolved = hook.Spec()
	}

	engine := p.Simulation.GetEngine()
	kernelTime := tracing.NewBusyTimeTracer(engine, func(task tracing.Task) bool { return task.What == kernelCommand })
	tracing.CollectTrace(p.Driver, kernelTime)
	commands := newCommandSpan(engine)
	tracing.CollectTrace(p.Driver, commands)

	rand.Seed(opts.Seed) //nolint:staticcheck // the benchmarks draw from the global source
	bench := w.New(p.Driver, sizes)
	bench.SelectGPU([]int{p.UnifiedGPU})
	p.Driver.Run()
	watchdogDone := make(chan struct{})
	if serial, ok := engine.(*sim.SerialEngine); ok {
		go unstall(serial, watchdogDone, func(cycle uint64) {
			msg := fmt.Sprintf("the simulation stopped at cycle %d: no event for %v while the program waits for the GPUs (a deadlock)",
				cycle, deadlockAfter)
			if p.Bus != nil {
				msg += "; bus buffers: " + p.Bus.Occupancy()
			}
			stop(opts.OutDir, rec, msg)
		})
	}
	bench.Run()

	end, kernels, settled := commands.settled(commandsSettle)
	if !settled {
		return nil, fmt.Errorf("a driver command was still running %v after the program returned", commandsSettle)
	}
	res := &Result{
		Benchmark: w.Name, Sizes: sizes,
		Cycles: cycles(kernelTime.BusyTime()), TotalCycles: cycles(end), KernelLaunches: kernels,
	}
	res.Stats = statsOf(p, hook, res, opts.FabricPJPerBit)
	res.Stats.Codec = opts.Compression.Codec
	if err := hook.Close(); err != nil { // finishes the trace before anyone reads it
		return nil, err
	}
	rec.Cycles, rec.KernelCycles, rec.KernelLaunches, rec.TotalCycles = res.Cycles, res.Cycles, kernels, res.TotalCycles
	rec.WallSeconds, rec.CPUSeconds = time.Since(start).Seconds(), cpuSeconds()-startCPU
	rec.OutputCheck = "not run"
	if opts.Check {
		rec.OutputCheck = "failed: MGPUSim's check stopped the run (see its log)"
		rec.ExitStatus = 1
	}
	if err := writeRunDir(opts.OutDir, rec, &res.Stats); err != nil {
		return nil, err
	}
	if opts.Check {
		bench.Verify() // exits the process when the output is wrong
		rec.OutputOK, rec.OutputCheck, rec.ExitStatus = true, "passed", 0
		if err := writeRunDir(opts.OutDir, rec, nil); err != nil {
			return nil, err
		}
	}
	close(watchdogDone)
	p.Driver.Terminate()
	p.Simulation.Terminate()
	res.WallSeconds, res.CPUSeconds = rec.WallSeconds, rec.CPUSeconds
	res.Record = rec
	return res, nil
}

// platformRecord is what run.json says of the machine and the costs.
func platformRecord(cfg platform.Config, comp linkcompress.Config) PlatformRecord {
	r := PlatformRecord{
		L1InvalidateAtLaunch: cfg.InvalidateL1AtLaunch, L2BanksPerGPU: cfg.L2Banks(),
		AlgFieldBits: comp.AlgFieldBits, Costs: comp.Sizes.String(), Sizes: comp.Sizes.Describe(),
		LatencyProfile: "each codec's own (memzip's DRAM-side defaults)",
		CodecModel:     "latencies not charged (MGPUSim's PCIe fabric)",
	}
	if comp.Costs == memzip.CostsPaper004 {
		r.LatencyProfile = "Table III: FPC 3/5, BDI 2/1, C-Pack+Z 16/9 cycles"
	}
	if cfg.Fabric == platform.FabricBus {
		r.InterleavePages = cfg.InterleavePages // the page table is the bus platform's
		r.BusBytesPerCycle, r.BufferBytes = cfg.Bus.BytesPerCycle, cfg.Bus.BufferBytes
		r.ResponseReserveBytes = cfg.Bus.ResponseReserveBytes
		r.CodecModel = cfg.Bus.CodecModel()
	}
	return r
}

func writeRunDir(dir string, rec RunRecord, stats *StatsRecord) error {
	if dir == "" {
		return nil
	}
	if stats != nil {
		if err := writeJSON(dir, "stats.json", stats); err != nil {
			return err
		}
	}
	return writeJSON(dir, "run.json", rec)
}

// stop ends a run that cannot go on (a payload that did not decode, a
// deadlocked simulation):
// the run directory says so, and the process exits non-zero.
func stop(dir string, rec RunRecord, msg string) {
	rec.ExitStatus, rec.OutputCheck = 1, "stopped: "+msg
	_ = writeRunDir(dir, rec, nil)
	fmt.Fprintln(os.Stderr, "memzip-mgpu:", msg)
	os.Exit(1)
}

func statsOf(p *platform.Platform, hook *linkcompress.Hook, res *Result, pjPerBit float64) StatsRecord {
	s := StatsRecord{Cycles: res.Cycles, Energy: Energy{FabricPJPerBit: pjPerBit}}
	if hook != nil {
		report := hook.Report()
		s.Link = &report
		s.Energy.CompressPJ = report.Total.CompressPJ
		s.Energy.DecompressPJ = report.Total.DecompressPJ
	}
	if p.Bus != nil {
		total := p.Bus.Stats().Total()
		cfg := p.Bus.Config()
		s.Fabric = &FabricReport{
			BytesPerCycle: cfg.BytesPerCycle, BufferBytes: cfg.BufferBytes,
			BufferLanes:          "requests and responses, sharing each buffer",
			ResponseReserveBytes: cfg.ResponseReserveBytes, CodecModel: cfg.CodecModel(),
			Total: total, Pairs: p.Bus.Stats().Pairs(),
		}
		s.Energy.FabricPJ = pjPerBit * 8 * float64(total.Bytes)
		s.Energy.FabricScope = "every message on the bus"
	} else {
		s.Energy.FabricScope = "not measured: memzip sees only the inter-GPU payloads of MGPUSim's PCIe fabric"
	}
	s.Energy.TotalPJ = s.Energy.FabricPJ + s.Energy.CompressPJ + s.Energy.DecompressPJ
	return s
}

func cycles(t sim.VTimeInSec) uint64 { return (1 * sim.GHz).Cycle(t) }

// String is the one-line summary the command prints.
func (r *Result) String() string {
	return fmt.Sprintf("%s %s: %d kernel cycles (%d launches; %d cycles with copies), %.1f s wall, %.1f s CPU",
		r.Benchmark, r.Sizes, r.Cycles, r.KernelLaunches, r.TotalCycles, r.WallSeconds, r.CPUSeconds)
}
