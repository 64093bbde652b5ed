package mgpurun

import (
	"encoding/json"
	"fmt"
	"testing"

	"memzip/mgpusim-plugin/linkcompress"
	"memzip/mgpusim-plugin/platform"
)

// Small inputs with inter-GPU traffic every codec of the paper compresses:
// a transpose of consecutive integers and a convolution of a constant image.
var smallRuns = []struct{ bench, sizes string }{
	{"matrixtranspose", "width=128"},
	{"simpleconvolution", "width=62,height=62"},
}

func run(t *testing.T, bench, sizes string, plat platform.Config, comp linkcompress.Config) *Result {
	t.Helper()
	res, err := Run(Options{Benchmark: bench, Sizes: sizes, Platform: plat, Compression: comp, Check: true, Seed: 1,
		FabricPJPerBit: DefaultFabricPJPerBit})
	if err != nil {
		t.Fatalf("%s %s %s: %v", bench, sizes, comp.Codec, err)
	}
	return res
}

// The hook with the none codec sends every payload raw through memzip: no
// message may change size or time, on either fabric.
func TestHookWithNoneChangesNoCycle(t *testing.T) {
	for _, fabricName := range []string{platform.FabricBus, platform.FabricPCIe} {
		plat := platform.PaperConfig()
		plat.Fabric = fabricName
		none := linkcompress.PaperConfig("none")
		none.Sizes = linkcompress.SizesMGPUSim // MGPUSim's headers: nothing installed
		without := run(t, "matrixtranspose", "width=128", plat, none)
		none.HookNone, none.Verify = true, true
		with := run(t, "matrixtranspose", "width=128", plat, none)
		// Kernel time; total_cycles also holds when the program's host
		// commands entered, which MGPUSim's driver goroutine makes vary.
		if with.Cycles != without.Cycles {
			t.Errorf("%s: %d kernel cycles with the hook, %d without", fabricName, with.Cycles, without.Cycles)
		}
		if with.Stats.Link == nil || with.Stats.Link.Total.Messages == 0 {
			t.Fatalf("%s: the hook saw no payload", fabricName)
		}
		if l := with.Stats.Link.Total; l.WirePayloadBytes != l.PayloadBytes || with.Stats.Link.VerifiedMessages != l.Messages {
			t.Errorf("%s: none moved %d payload bytes as %d, verified %d of %d", fabricName,
				l.PayloadBytes, l.WirePayloadBytes, with.Stats.Link.VerifiedMessages, l.Messages)
		}
		if fabricName == platform.FabricBus && fmt.Sprint(*with.Stats.Fabric) != fmt.Sprint(*without.Stats.Fabric) {
			t.Errorf("bus traffic changed: %+v vs %+v", with.Stats.Fabric.Total, without.Stats.Fabric.Total)
		}
	}
}

// Under the paper's sizes every read request carries Fig. 4's 16-byte header
// (MGPUSim's: 12) and every write request 13 bytes (12) with the algorithm
// field inside: uncompressed, the bus carries exactly 4 bytes more per read
// and 1 more per write, and nothing else changes size.
func TestPaperHeadersOnTheBus(t *testing.T) {
	mgpusim := linkcompress.PaperConfig("none")
	mgpusim.Sizes = linkcompress.SizesMGPUSim
	before := run(t, "matrixtranspose", "width=64", platform.PaperConfig(), mgpusim)
	after := run(t, "matrixtranspose", "width=64", platform.PaperConfig(), linkcompress.PaperConfig("none"))
	reads := after.Stats.Link.ByKind["read_data"].Messages
	writes := after.Stats.Link.ByKind["write"].Messages
	if reads == 0 || writes == 0 {
		t.Fatalf("no inter-GPU reads (%d) or writes (%d)", reads, writes)
	}
	grew := after.Stats.Fabric.Total.Bytes - before.Stats.Fabric.Total.Bytes
	if grew != 4*reads+writes || after.Stats.Fabric.Total.Messages != before.Stats.Fabric.Total.Messages {
		t.Errorf("paper headers added %d bus bytes (%d -> %d messages), want 4 x %d reads + %d writes",
			grew, before.Stats.Fabric.Total.Messages, after.Stats.Fabric.Total.Messages, reads, writes)
	}
	if got := after.Record.Platform.Costs; got != "paper004" {
		t.Errorf("run.json platform.costs %q", got)
	}
}

// Each of the paper's codecs moves fewer bytes over the paper's bus than
// none, and every compressed payload decodes back at its receiver.
func TestCodecsShrinkFabricTraffic(t *testing.T) {
	for _, r := range smallRuns {
		base := run(t, r.bench, r.sizes, platform.PaperConfig(), linkcompress.PaperConfig("none"))
		for _, codec := range []string{"bdi", "fpc", "cpack_z", "adaptive:lambda=6"} {
			comp := linkcompress.PaperConfig(codec)
			comp.Verify = true
			res := run(t, r.bench, r.sizes, platform.PaperConfig(), comp)
			link := res.Stats.Link.Total
			if link.CompressedMessages == 0 || link.WirePayloadBytes >= link.PayloadBytes {
				t.Errorf("%s %s: %d of %d payloads compressed, %d -> %d bytes", r.bench, codec,
					link.CompressedMessages, link.Messages, link.PayloadBytes, link.WirePayloadBytes)
			}
			if res.Stats.Link.VerifiedMessages != link.Messages || res.Stats.Link.InFlightAtEnd != 0 {
				t.Errorf("%s %s: verified %d of %d payloads, %d in flight", r.bench, codec,
					res.Stats.Link.VerifiedMessages, link.Messages, res.Stats.Link.InFlightAtEnd)
			}
			if got, was := res.Stats.Fabric.Total.Bytes, base.Stats.Fabric.Total.Bytes; got >= was {
				t.Errorf("%s %s: %d fabric bytes, none moved %d", r.bench, codec, got, was)
			}
			if res.Stats.Energy.CompressPJ <= 0 {
				t.Errorf("%s %s: compressors cost no energy", r.bench, codec)
			}
		}
	}
}

// Same inputs and configuration, same statistics (stats.json; run.json's
// total_cycles and wall time may differ).
func TestRunsRepeat(t *testing.T) {
	comp := linkcompress.PaperConfig("adaptive:lambda=6")
	var first []byte
	for i := 0; i < 2; i++ {
		res := run(t, "kmeans", "points=64,iterations=2", platform.PaperConfig(), comp)
		stats, err := json.Marshal(res.Stats)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = stats
		} else if string(stats) != string(first) {
			t.Errorf("two runs gave different statistics:\n%s\n%s", first, stats)
		}
	}
}

// BitonicSort (one kernel per pass) reads what other CUs wrote in earlier
// passes: it passes its own check only because the platform empties the L1
// vector caches at each launch (MGPUSim alone fails it; a failed check ends
// the test binary). The run also takes longer than with stale hits would.
func TestMultiKernelProgramsSeeEarlierKernelsWrites(t *testing.T) {
	res := run(t, "bitonicsort", "length=256", platform.PaperConfig(), linkcompress.PaperConfig("none"))
	if res.KernelLaunches < 10 {
		t.Errorf("%d kernel launches, want one per pass", res.KernelLaunches)
	}
}

// On MGPUSim's own PCIe fabric the compressed size is what the links charge
// (Akita turns TrafficBytes into flits): BDI's 7.8x smaller payloads of a
// constant image shorten the kernel there too.
func TestPCIeChargesTheCompressedSize(t *testing.T) {
	plat := platform.PaperConfig()
	plat.Fabric = platform.FabricPCIe
	none := run(t, "simpleconvolution", "width=62,height=62", plat, linkcompress.PaperConfig("none"))
	bdi := run(t, "simpleconvolution", "width=62,height=62", plat, linkcompress.PaperConfig("bdi"))
	if bdi.Cycles >= none.Cycles {
		t.Errorf("bdi %d kernel cycles on PCIe, none %d", bdi.Cycles, none.Cycles)
	}
}
