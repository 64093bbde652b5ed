// Command memzip-mgpu runs one MGPUSim benchmark on several GPUs with a
// memzip codec compressing the payloads that travel between them, and
// writes a run directory memzip's table, report and sweep read.
//
//	memzip-mgpu -benchmark fir -size length=65536 -codec adaptive:lambda=6 -verify -out runs/fir-adaptive
//
// The defaults are the system of "Exploiting Adaptive Data Compression to
// Improve Performance and Energy-Efficiency of Compute Workloads in
// Multi-GPU Systems" (Tavana et al., IPDPS 2019): 4 R9 Nano GPUs on its
// 20-byte-per-cycle bus, its Table III codec latencies, 64-byte payloads.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"
	"strings"

	"memzip/mgpusim-plugin/linkcompress"
	"memzip/mgpusim-plugin/memzip"
	"memzip/mgpusim-plugin/mgpurun"
	"memzip/mgpusim-plugin/platform"
	"memzip/mgpusim-plugin/workloads"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "memzip-mgpu:", err)
		return 2
	}
	log.SetFlags(0) // MGPUSim's benchmarks log their check; no file paths
	log.SetOutput(stderr)
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "memzip-mgpu:", err)
			return 2
		}
		defer stopProfile()
	}
	res, err := mgpurun.Run(opts)
	if err != nil {
		fmt.Fprintln(stderr, "memzip-mgpu:", err)
		return 1
	}
	fmt.Fprintln(stdout, res)
	printSummary(stdout, res)
	return 0
}

var cpuProfile = new(string)

// startCPUProfile writes Go's CPU profile of the run (where the time goes:
// MGPUSim, the bus, the hook, the codecs) to path.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func parse(args []string, stderr io.Writer) (mgpurun.Options, error) {
	fs := flag.NewFlagSet("memzip-mgpu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pc := platform.PaperConfig()
	opts := mgpurun.Options{}
	fs.StringVar(&opts.Benchmark, "benchmark", "", "benchmark: "+strings.Join(workloads.Names(), ", "))
	fs.StringVar(&opts.Sizes, "size", "", "sizes as name=value,... over the benchmark's defaults (e.g. length=65536)")
	fs.IntVar(&pc.GPUs, "gpus", pc.GPUs, "number of GPUs")
	fs.StringVar(&pc.Fabric, "fabric", pc.Fabric, "fabric: bus (the paper's) or pcie (MGPUSim's own platform)")
	fs.IntVar(&pc.Bus.BytesPerCycle, "bus-bytes-per-cycle", pc.Bus.BytesPerCycle, "bus bandwidth, bytes per 1 GHz cycle")
	fs.IntVar(&pc.Bus.BufferBytes, "bus-buffer-bytes", pc.Bus.BufferBytes, "each endpoint's input and output buffer (shared by requests and responses)")
	fs.IntVar(&pc.Bus.ResponseReserveBytes, "bus-response-reserve", pc.Bus.ResponseReserveBytes, "bytes of each buffer requests leave to responses")
	compressors := fs.String("compressors", "one", "compressors and decompressors: one per GPU (the paper's) or unlimited (every message its own: latencies overlap)")
	fs.IntVar(&pc.Bus.CodecIntervalCycles, "codec-interval", 0, "initiation interval of each GPU's compressor and decompressor in cycles (0: a message's own latency, not pipelined)")
	fs.IntVar(&pc.MemoryBanks, "memory-banks", pc.MemoryBanks, "L2 banks and DRAM channels per GPU (bus platform)")
	fs.BoolVar(&pc.Parallel, "parallel", false, "Akita's parallel engine")
	fs.BoolVar(&pc.InterleavePages, "interleave-pages", pc.InterleavePages,
		"place GPU memory in 4 KB pages rotating over the GPUs, the paper's layout (bus platform; false: MGPUSim's, each buffer whole on one GPU)")
	fs.BoolVar(&pc.InvalidateL1AtLaunch, "l1-invalidate", pc.InvalidateL1AtLaunch,
		"empty the L1 vector caches at each kernel launch, as GCN does (MGPUSim does not: false runs it as MGPUSim)")
	lc := linkcompress.PaperConfig("none")
	fs.StringVar(&lc.Codec, "codec", "none", "memzip codec spec: "+strings.Join(memzip.Names(), ", ")+" (with knobs, e.g. adaptive:lambda=6)")
	costs := fs.String("costs", "paper004", "costs: paper004 (Table III latencies, Fig. 4 headers, Table II BDI sizes) or memzip (each codec's DRAM-side latencies and sizes, MGPUSim's headers)")
	fs.StringVar(&lc.TablePath, "e2mc-table", "", "offline E2MC table (JSON) for e2mc codecs")
	fs.IntVar(&lc.AlgFieldBits, "alg-field-bits", lc.AlgFieldBits, "header bits naming the algorithm (Fig. 4)")
	fs.BoolVar(&lc.HookNone, "hook-none", false, "install the hook even for codec none (its cost; it must change no cycle)")
	fs.BoolVar(&lc.Verify, "verify", false, "decompress every compressed payload at its receiver and compare")
	fs.StringVar(&lc.TracePath, "trace", "", "write every 64-byte payload to this memzip trace (for memzip analyze)")
	fs.BoolVar(&opts.Check, "check", true, "run the benchmark's own output check")
	fs.Int64Var(&opts.Seed, "seed", 1, "seed of the inputs AES, BitonicSort and KMeans draw at random")
	fs.Float64Var(&opts.FabricPJPerBit, "fabric-pj-per-bit", mgpurun.DefaultFabricPJPerBit, "fabric energy per bit (pJ)")
	fs.StringVar(cpuProfile, "cpuprofile", "", "write Go's CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&opts.OutDir, "out", "", "run directory for run.json, stats.json (and the trace)")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("unexpected argument %q (flags only; see -help)", fs.Arg(0))
	}
	if opts.Benchmark == "" {
		return opts, fmt.Errorf("-benchmark is required: one of %s", strings.Join(workloads.Names(), ", "))
	}
	w, err := workloads.Lookup(opts.Benchmark)
	if err != nil {
		return opts, err
	}
	if _, err := w.ParseSizes(opts.Sizes); err != nil {
		return opts, err
	}
	switch *costs {
	case "paper004":
		lc.Costs, lc.Sizes = memzip.CostsPaper004, linkcompress.SizesPaper004
	case "memzip":
		lc.Costs, lc.Sizes = memzip.CostsDefault, linkcompress.SizesMGPUSim
	default:
		return opts, fmt.Errorf("-costs %q: expected paper004 or memzip", *costs)
	}
	switch *compressors {
	case "one":
	case "unlimited":
		pc.Bus.UnlimitedCodecs = true
	default:
		return opts, fmt.Errorf("-compressors %q: expected one or unlimited", *compressors)
	}
	if opts.FabricPJPerBit < 0 {
		return opts, fmt.Errorf("-fabric-pj-per-bit %g: expected a non-negative number", opts.FabricPJPerBit)
	}
	if lc.AlgFieldBits < 0 || lc.AlgFieldBits > 64 {
		return opts, fmt.Errorf("-alg-field-bits %d: expected 0..64", lc.AlgFieldBits)
	}
	if err := pc.Validate(); err != nil {
		return opts, err
	}
	var probe *memzip.Codec
	// Build the codec once now, so a bad spec stops here with memzip's
	// one-line message, before the platform is built.
	probe, err = memzip.NewCodec(lc.Codec, lc.BlockBytes, 1, lc.Costs, lc.TablePath)
	if err != nil {
		return opts, fmt.Errorf("-codec %s: %w", lc.Codec, err)
	}
	probe.Close()
	opts.Platform, opts.Compression = pc, lc
	return opts, nil
}

func printSummary(w io.Writer, res *mgpurun.Result) {
	s := res.Stats
	if s.Fabric != nil {
		fmt.Fprintf(w, "fabric: %d messages, %d bytes, %d busy cycles (%.0f%% of the run)\n",
			s.Fabric.Total.Messages, s.Fabric.Total.Bytes, s.Fabric.Total.BusyCycles,
			100*float64(s.Fabric.Total.BusyCycles)/float64(res.TotalCycles))
	}
	if s.Link != nil {
		t := s.Link.Total
		fmt.Fprintf(w, "payloads: %d messages (%d compressed), %d -> %d bytes on the link (%.2fx), %d verified\n",
			t.Messages, t.CompressedMessages, t.PayloadBytes, t.WirePayloadBytes, t.WireCompressionRatio, s.Link.VerifiedMessages)
	}
	e := s.Energy
	fmt.Fprintf(w, "energy: fabric %.3g pJ, compress %.3g pJ, decompress %.3g pJ\n", e.FabricPJ, e.CompressPJ, e.DecompressPJ)
}
