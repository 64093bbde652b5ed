// Package workloads names the MGPUSim benchmarks memzip runs and their size
// parameters: the six of "Exploiting Adaptive Data Compression to Improve
// Performance and Energy-Efficiency of Compute Workloads in Multi-GPU
// Systems" (Tavana et al., IPDPS 2019), Table IV, as MGPUSim ships them with
// their GPU kernels embedded (Hetero-Mark AES, FIR, KMeans; AMD APP SDK
// BitonicSort, MatrixTranspose, SimpleConvolution). Inputs are the
// benchmarks' own generators, unchanged.
package workloads

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sarchlab/mgpusim/v4/amd/arch"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/amdappsdk/bitonicsort"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/amdappsdk/matrixtranspose"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/amdappsdk/simpleconvolution"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/heteromark/aes"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/heteromark/fir"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/heteromark/kmeans"
	"github.com/sarchlab/mgpusim/v4/amd/driver"
)

// Param is one size parameter with the default of MGPUSim's sample program.
type Param struct {
	Name    string
	Default int
	Help    string
}

// Workload is one benchmark.
type Workload struct {
	Name   string // memzip's name, e.g. "fir"
	Suite  string // where MGPUSim's copy comes from
	Params []Param
	build  func(d *driver.Driver, size map[string]int) benchmarks.Benchmark
}

// Sizes is a full assignment of a workload's parameters.
type Sizes map[string]int

// String lists the sizes as name=value in parameter-name order.
func (s Sizes) String() string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, s[n])
	}
	return strings.Join(parts, ",")
}

var all = []Workload{
	{
		Name: "aes", Suite: "heteromark",
		Params: []Param{{"length", 65536, "bytes to encrypt"}},
		build: func(d *driver.Driver, s map[string]int) benchmarks.Benchmark {
			b := aes.NewBenchmark(d)
			b.Length = s["length"]
			b.Arch = arch.GCN3
			return b
		},
	},
	{
		Name: "fir", Suite: "heteromark",
		Params: []Param{{"length", 4096, "samples to filter"}, {"taps", 16, "filter taps"}},
		build: func(d *driver.Driver, s map[string]int) benchmarks.Benchmark {
			b := fir.NewBenchmark(d)
			b.Length = s["length"]
			b.NumTapsParam = s["taps"]
			b.Arch = arch.GCN3
			return b
		},
	},
	{
		Name: "kmeans", Suite: "heteromark",
		Params: []Param{
			{"points", 1024, "points to cluster"}, {"clusters", 5, "clusters"},
			{"features", 32, "features per point"}, {"iterations", 5, "maximum iterations"},
		},
		build: func(d *driver.Driver, s map[string]int) benchmarks.Benchmark {
			b := kmeans.NewBenchmark(d)
			b.NumPoints = s["points"]
			b.NumClusters = s["clusters"]
			b.NumFeatures = s["features"]
			b.MaxIter = s["iterations"]
			b.Arch = arch.GCN3
			return b
		},
	},
	{
		Name: "bitonicsort", Suite: "amdappsdk",
		Params: []Param{{"length", 1024, "numbers to sort"}},
		build: func(d *driver.Driver, s map[string]int) benchmarks.Benchmark {
			b := bitonicsort.NewBenchmark(d)
			b.Length = s["length"]
			b.OrderAscending = true
			b.Arch = arch.GCN3
			return b
		},
	},
	{
		Name: "matrixtranspose", Suite: "amdappsdk",
		Params: []Param{{"width", 256, "side of the square matrix"}},
		build: func(d *driver.Driver, s map[string]int) benchmarks.Benchmark {
			b := matrixtranspose.NewBenchmark(d)
			b.Width = s["width"]
			b.Arch = arch.GCN3
			return b
		},
	},
	{
		Name: "simpleconvolution", Suite: "amdappsdk",
		Params: []Param{{"width", 254, "image width"}, {"height", 254, "image height"}, {"mask", 3, "mask side"}},
		build: func(d *driver.Driver, s map[string]int) benchmarks.Benchmark {
			b := simpleconvolution.NewBenchmark(d)
			b.Width = uint32(s["width"])
			b.Height = uint32(s["height"])
			b.SetMaskSize(uint32(s["mask"]))
			b.Arch = arch.GCN3
			return b
		},
	},
}

// Names lists every workload.
func Names() []string {
	names := make([]string, len(all))
	for i, w := range all {
		names[i] = w.Name
	}
	return names
}

// Lookup finds a workload by name.
func Lookup(name string) (*Workload, error) {
	for i := range all {
		if all[i].Name == name {
			return &all[i], nil
		}
	}
	return nil, fmt.Errorf("unknown benchmark %q: expected one of %s", name, strings.Join(Names(), ", "))
}

// ParseSizes reads "name=value,..." over the defaults; every name must be
// one of the workload's parameters and every value a positive integer.
func (w *Workload) ParseSizes(text string) (Sizes, error) {
	sizes := Sizes{}
	for _, p := range w.Params {
		sizes[p.Name] = p.Default
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return sizes, nil
	}
	seen := map[string]bool{}
	for _, pair := range strings.Split(text, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return nil, fmt.Errorf("size %q of %s: expected name=value", pair, w.Name)
		}
		if _, known := sizes[name]; !known {
			return nil, fmt.Errorf("size %q of %s: expected one of %s", name, w.Name, w.paramNames())
		}
		if seen[name] {
			return nil, fmt.Errorf("size %q of %s given twice", name, w.Name)
		}
		seen[name] = true
		n, err := strconv.Atoi(value)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("size %s=%q of %s: expected a positive integer", name, value, w.Name)
		}
		sizes[name] = n
	}
	return sizes, nil
}

func (w *Workload) paramNames() string {
	names := make([]string, len(w.Params))
	for i, p := range w.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// New builds the benchmark for a driver; the caller selects its GPUs.
func (w *Workload) New(d *driver.Driver, sizes Sizes) benchmarks.Benchmark {
	return w.build(d, sizes)
}
