package memzip

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// blocks of the kinds the papers' patterns describe: zeros, small integers,
// pointers (low dynamic range), random bytes.
func testBlocks() [][]byte {
	rng := rand.New(rand.NewSource(7))
	zeros := make([]byte, 64)
	small := make([]byte, 64)
	pointers := make([]byte, 64)
	random := make([]byte, 64)
	for i := 0; i < 16; i++ {
		binary.LittleEndian.PutUint32(small[4*i:], uint32(i%5))
	}
	for i := 0; i < 8; i++ {
		binary.LittleEndian.PutUint64(pointers[8*i:], 0x7f00_1234_0000+uint64(24*i))
	}
	rng.Read(random)
	return [][]byte{zeros, small, pointers, random}
}

func TestEveryCodecRoundTrips(t *testing.T) {
	for _, name := range Names() {
		if strings.HasPrefix(name, "e2mc") || strings.HasPrefix(name, "slc") {
			continue // need a table or sampling; covered by the C ABI's own tests
		}
		c, err := NewCodec(name, 64, 1, CostsPaper004, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		payload := make([]byte, 72)
		out := make([]byte, 64)
		for i, block := range testBlocks() {
			var info BlockInfo
			if err := c.Compress(block, payload, &info); err != nil {
				t.Fatalf("%s block %d: %v", name, i, err)
			}
			if info.Encoding == 0 && info.CompressedBits != 512 {
				t.Errorf("%s block %d: raw block of %d bits", name, i, info.CompressedBits)
			}
			n := info.PayloadBytes()
			if err := c.Decompress(payload[:n], info.Encoding, info.CompressedBits, out); err != nil {
				t.Fatalf("%s block %d: %v", name, i, err)
			}
			if string(out) != string(block) {
				t.Errorf("%s block %d decoded to other bytes", name, i)
			}
			if err := c.Verify(payload[:n], info.Encoding, info.CompressedBits, block); err != nil {
				t.Errorf("%s block %d: verify: %v", name, i, err)
			}
		}
		c.Close()
	}
}

func TestZeroBlockShrinksUnderPaperCodecs(t *testing.T) {
	for _, spec := range []string{"bdi", "fpc", "cpack_z", "adaptive:lambda=6"} {
		c, err := NewCodec(spec, 64, 1, CostsPaper004, "")
		if err != nil {
			t.Fatal(err)
		}
		var info BlockInfo
		if err := c.Compress(make([]byte, 64), make([]byte, 72), &info); err != nil {
			t.Fatal(err)
		}
		if info.Encoding == 0 || info.CompressedBits >= 64 {
			t.Errorf("%s: a zero block took %d bits (encoding %d)", spec, info.CompressedBits, info.Encoding)
		}
		c.Close()
	}
}

// Table III of the paper: FPC 3/5, BDI 2/1, C-Pack+Z 16/9 cycles.
func TestPaperCostsAreTableIII(t *testing.T) {
	want := map[string][2]uint32{"fpc": {3, 5}, "bdi": {2, 1}, "cpack_z": {16, 9}}
	for spec, cycles := range want {
		c, err := NewCodec(spec, 64, 1, CostsPaper004, "")
		if err != nil {
			t.Fatal(err)
		}
		var info BlockInfo
		block := testBlocks()[1]
		if err := c.Compress(block, make([]byte, 72), &info); err != nil {
			t.Fatal(err)
		}
		if info.CompressCycles != cycles[0] || (info.Encoding != 0 && info.DecompressCycles != cycles[1]) {
			t.Errorf("%s: %d/%d cycles, want %d/%d (encoding %d)", spec, info.CompressCycles, info.DecompressCycles,
				cycles[0], cycles[1], info.Encoding)
		}
		c.Close()
	}
}

func TestErrorsAreOneLineAndTyped(t *testing.T) {
	_, err := NewCodec("zip", 64, 1, CostsPaper004, "")
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrSpec || !strings.Contains(e.Message, "zip") || strings.Contains(e.Message, "\n") {
		t.Errorf("bad spec: %#v", err)
	}
	c, err := NewCodec("bdi", 64, 1, CostsPaper004, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var info BlockInfo
	if err := c.Compress(make([]byte, 32), make([]byte, 72), &info); !errors.As(err, &e) || e.Code != ErrArgument {
		t.Errorf("short block: %v", err)
	}
	if err := c.Compress(make([]byte, 64), make([]byte, 8), &info); !errors.As(err, &e) || e.Code != ErrArgument {
		t.Errorf("short payload buffer: %v", err)
	}
	if err := c.Decompress([]byte{0xff, 0xff}, 3, 16, make([]byte, 64)); !errors.As(err, &e) || e.Code != ErrCorrupt {
		t.Errorf("corrupt payload: %v", err)
	}
	other := testBlocks()[1]
	payload := make([]byte, 72)
	if err := c.Compress(testBlocks()[2], payload, &info); err != nil {
		t.Fatal(err)
	}
	if err := c.Verify(payload[:info.PayloadBytes()], info.Encoding, info.CompressedBits, other); !errors.As(err, &e) || e.Code != ErrMismatch {
		t.Errorf("mismatch: %v", err)
	}
	if _, err := CreateTrace(filepath.Join(t.TempDir(), "no-such-dir", "t.mztrace"), 64); err == nil {
		t.Error("a trace in a missing directory was created")
	}
}

// The hot path allocates nothing on the Go side.
func TestCompressAndVerifyDoNotAllocate(t *testing.T) {
	c, err := NewCodec("adaptive:lambda=6", 64, 1, CostsPaper004, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	blocks := testBlocks()
	payload := make([]byte, 72)
	var info BlockInfo
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		block := blocks[i%len(blocks)]
		i++
		if err := c.Compress(block, payload, &info); err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(payload[:info.PayloadBytes()], info.Encoding, info.CompressedBits, block); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per compress + verify", allocs)
	}
}

func TestStatsCountTheBlocks(t *testing.T) {
	c, err := NewCodec("bdi", 64, 1, CostsPaper004, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var info BlockInfo
	for _, b := range testBlocks() {
		if err := c.Compress(b, make([]byte, 72), &info); err != nil {
			t.Fatal(err)
		}
	}
	var stats struct {
		Blocks int `json:"blocks"`
	}
	if err := json.Unmarshal(c.StatsJSON(), &stats); err != nil || stats.Blocks != 4 {
		t.Errorf("stats %s (%v)", c.StatsJSON(), err)
	}
}

func BenchmarkCompress(b *testing.B) {
	for _, spec := range []string{"none", "bdi", "fpc", "cpack_z", "adaptive:lambda=6"} {
		b.Run(spec, func(b *testing.B) {
			c, err := NewCodec(spec, 64, 1, CostsPaper004, "")
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			blocks := testBlocks()
			payload := make([]byte, 72)
			var info BlockInfo
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := c.Compress(blocks[i%len(blocks)], payload, &info); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
