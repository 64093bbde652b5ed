package mgpurun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"memzip/mgpusim-plugin/fabric"
	"memzip/mgpusim-plugin/linkcompress"
)

// Simulator names what ran, as run.json's "simulator" field.
const Simulator = "mgpusim-v4.2.0"

// RunRecord is run.json: what ran and how it ended, in the fields memzip's
// gpgpu-sim runs use (program, codec, simulator, cycles, output_ok, ...)
// plus the multi-GPU platform's.
type RunRecord struct {
	Codec         string         `json:"codec"`
	CodecResolved string         `json:"codec_resolved,omitempty"`
	Program       string         `json:"program"`
	Benchmark     string         `json:"benchmark"`
	Sizes         map[string]int `json:"sizes"`
	Simulator     string         `json:"simulator"`
	GPUs          int            `json:"gpus"`
	Fabric        string         `json:"fabric"`
	// CodecModel is how compression latency was modelled (-compressors,
	// -codec-interval): one unit per GPU or unlimited.
	CodecModel string `json:"codec_model,omitempty"`
	// Platform is the rest of the machine and the cost model as this run
	// built them.
	Platform       PlatformRecord `json:"platform"`
	ExitStatus     int            `json:"exit_status"`
	Cycles         uint64         `json:"cycles"`
	KernelCycles   uint64         `json:"kernel_cycles"`
	KernelLaunches int            `json:"kernel_launches"`
	// TotalCycles runs to the end of the benchmark's last command (copies
	// included). MGPUSim's driver takes host commands from another
	// goroutine, so when a command enters can move by a few cycles from run
	// to run; it lives here, beside the wall time, not in stats.json.
	TotalCycles uint64  `json:"total_cycles"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	Verify      bool    `json:"verify"`
	OutputOK    bool    `json:"output_ok"`
	OutputCheck string  `json:"output_check"`
}

// PlatformRecord is run.json's account of the machine and the cost model,
// so two runs' numbers can be told apart by what they assumed.
type PlatformRecord struct {
	InterleavePages      bool   `json:"interleave_pages"`        // 4 KB pages over the GPUs (bus only)
	L1InvalidateAtLaunch bool   `json:"l1_invalidate_at_launch"` // GCN's acquire at each kernel start
	L2BanksPerGPU        int    `json:"l2_banks_per_gpu"`        // and DRAM channels
	BusBytesPerCycle     int    `json:"bus_bytes_per_cycle,omitempty"`
	BufferBytes          int    `json:"buffer_bytes,omitempty"` // each input/output buffer, both lanes
	ResponseReserveBytes int    `json:"response_reserve_bytes,omitempty"`
	AlgFieldBits         int    `json:"alg_field_bits"`
	Costs                string `json:"costs"` // -costs: the latency profile and sizes
	LatencyProfile       string `json:"latency_profile"`
	Sizes                string `json:"sizes"`
	CodecModel           string `json:"codec_model"`
}

// Energy is what the fabric and the codecs spent (picojoules).
type Energy struct {
	FabricPJPerBit float64 `json:"fabric_pj_per_bit"`
	FabricPJ       float64 `json:"fabric_pj"`
	CompressPJ     float64 `json:"compress_pj"`
	DecompressPJ   float64 `json:"decompress_pj"`
	TotalPJ        float64 `json:"total_pj"`
	// FabricScope says which bytes FabricPJ counts: every message on the
	// bus; nothing on PCIe, whose traffic memzip does not see whole.
	FabricScope string `json:"fabric_scope"`
}

// FabricReport is the bus's account (FabricBus only).
type FabricReport struct {
	BytesPerCycle int `json:"bytes_per_cycle"`
	// BufferBytes is each input and output buffer, shared by its request
	// and response lanes; requests leave ResponseReserveBytes of it.
	BufferBytes          int                  `json:"buffer_bytes"`
	BufferLanes          string               `json:"buffer_lanes"`
	ResponseReserveBytes int                  `json:"response_reserve_bytes"`
	CodecModel           string               `json:"codec_model"`
	Total                fabric.Traffic       `json:"total"`
	Pairs                []fabric.PairTraffic `json:"pairs"`
}

// StatsRecord is stats.json.
type StatsRecord struct {
	Codec  string               `json:"codec"`  // as given ("none": nothing installed)
	Cycles uint64               `json:"cycles"` // kernel time
	Link   *linkcompress.Report `json:"link"`   // nil when no hook is installed (none under -costs memzip)
	Fabric *FabricReport        `json:"fabric"`
	Energy Energy               `json:"energy"`
}

// writeJSON writes v to dir/name atomically (temporary file, then rename),
// so a reader never sees half a record.
func writeJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}
