// Package memzip is the Go binding of memzip's codecs, over their C ABI
// (rust/memzip-capi, header memzip.h): the same Rust codecs, spec strings and
// statistics as memzip's gpgpu-sim integration.
//
// A Codec or Trace belongs to one goroutine at a time (the simulator gives
// each GPU's compressor and decompressor their own). Calls on the hot path
// (Compress, Verify, Decompress) allocate nothing: the C side writes into
// buffers the caller owns and into a result held by the handle.
//
// Build: the static library comes from `cargo build --release -p
// memzip-capi` in the repository root (scripts/build-mgpu.sh does it).
package memzip

/*
#cgo CFLAGS: -I${SRCDIR}/../../rust/memzip-capi/include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -lmemzip_capi -lpthread -ldl -lm
#include <stdlib.h>
#include "memzip.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// Costs chooses the latency defaults of a codec.
type Costs int32

const (
	// CostsDefault keeps each codec's own (DRAM-side) latencies.
	CostsDefault Costs = C.MEMZIP_COSTS_DEFAULT
	// CostsPaper004 uses Table III of "Exploiting Adaptive Data Compression
	// to Improve Performance and Energy-Efficiency of Compute Workloads in
	// Multi-GPU Systems" (IPDPS 2019) wherever the spec sets none.
	CostsPaper004 Costs = C.MEMZIP_COSTS_PAPER004
)

// Error is a failure memzip reported: its status code and its one-line message.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

// Status codes (memzip.h).
const (
	ErrArgument = C.MEMZIP_ERR_ARGUMENT
	ErrSpec     = C.MEMZIP_ERR_SPEC
	ErrCorrupt  = C.MEMZIP_ERR_CORRUPT
	ErrMismatch = C.MEMZIP_ERR_MISMATCH
	ErrIO       = C.MEMZIP_ERR_IO
	ErrPanic    = C.MEMZIP_ERR_PANIC
)

func toError(e *C.memzip_error) error {
	if e.code == C.MEMZIP_OK {
		return nil
	}
	return &Error{Code: int(e.code), Message: C.GoString(&e.message[0])}
}

// BlockInfo is what compressing one block gave (memzip_block_info).
type BlockInfo struct {
	Encoding         uint32
	CompressedBits   uint32
	GranuleBytes     uint32
	BurstCount       uint32
	CompressCycles   uint32
	DecompressCycles uint32
	CompressPJ       float64
	DecompressPJ     float64
}

// PayloadBytes is how many bytes of the payload buffer hold the bitstream.
func (b *BlockInfo) PayloadBytes() int { return int(b.CompressedBits+7) / 8 }

// state lives in C memory, so passing its fields to C needs no Go pointer
// and no allocation per call.
type state struct {
	err  C.memzip_error
	info C.memzip_block_info
}

// Codec is one memzip codec instance.
type Codec struct {
	ptr        *C.memzip_codec
	st         *state
	blockBytes int
	spec       string
	encodings  []string
}

// Names lists every codec name memzip knows.
func Names() []string { return strings.Split(C.GoString(C.memzip_codec_names()), ",") }

// NewCodec builds a codec from a memzip spec ("fpc", "adaptive:lambda=6",
// ...), for blocks of blockBytes, sizes rounded to granuleBytes (1: bytes).
// tablePath is an offline E2MC table or "".
func NewCodec(spec string, blockBytes, granuleBytes int, costs Costs, tablePath string) (*Codec, error) {
	st := (*state)(C.calloc(1, C.size_t(unsafe.Sizeof(state{}))))
	cspec := C.CString(spec)
	defer C.free(unsafe.Pointer(cspec))
	var ctable *C.char
	if tablePath != "" {
		ctable = C.CString(tablePath)
		defer C.free(unsafe.Pointer(ctable))
	}
	ptr := C.memzip_codec_new(cspec, C.uint32_t(blockBytes), C.uint32_t(granuleBytes), C.int32_t(costs), ctable, &st.err)
	if ptr == nil {
		err := toError(&st.err)
		C.free(unsafe.Pointer(st))
		return nil, err
	}
	c := &Codec{ptr: ptr, st: st, blockBytes: blockBytes, spec: C.GoString(C.memzip_codec_spec(ptr))}
	for i := C.uint32_t(0); i < C.memzip_codec_encoding_count(ptr); i++ {
		c.encodings = append(c.encodings, C.GoString(C.memzip_codec_encoding_name(ptr, i)))
	}
	return c, nil
}

// Close frees the codec; it may not be used again.
func (c *Codec) Close() {
	if c.ptr != nil {
		C.memzip_codec_free(c.ptr)
		C.free(unsafe.Pointer(c.st))
		c.ptr, c.st = nil, nil
	}
}

// Spec is the resolved spec, every knob written out.
func (c *Codec) Spec() string { return c.spec }

// BlockBytes is the block size the codec was built for.
func (c *Codec) BlockBytes() int { return c.blockBytes }

// EncodingName names an encoding id ("" if out of range).
func (c *Codec) EncodingName(encoding uint32) string {
	if int(encoding) < len(c.encodings) {
		return c.encodings[encoding]
	}
	return ""
}

// Encodings names every encoding id, in id order.
func (c *Codec) Encodings() []string { return c.encodings }

func bytesPtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// Compress encodes block into payload (at least len(block) bytes) and fills info.
func (c *Codec) Compress(block, payload []byte, info *BlockInfo) error {
	rc := C.memzip_compress(c.ptr, bytesPtr(block), C.size_t(len(block)), bytesPtr(payload), C.size_t(len(payload)),
		&c.st.info, &c.st.err)
	if rc != C.MEMZIP_OK {
		return toError(&c.st.err)
	}
	in := &c.st.info
	*info = BlockInfo{
		Encoding: uint32(in.encoding), CompressedBits: uint32(in.compressed_bits),
		GranuleBytes: uint32(in.granule_bytes), BurstCount: uint32(in.burst_count),
		CompressCycles: uint32(in.compress_cycles), DecompressCycles: uint32(in.decompress_cycles),
		CompressPJ: float64(in.compress_pj), DecompressPJ: float64(in.decompress_pj),
	}
	return nil
}

// Decompress decodes a payload into block (one block long).
func (c *Codec) Decompress(payload []byte, encoding, compressedBits uint32, block []byte) error {
	rc := C.memzip_decompress(c.ptr, bytesPtr(payload), C.size_t(len(payload)), C.uint32_t(encoding),
		C.uint32_t(compressedBits), bytesPtr(block), C.size_t(len(block)), &c.st.err)
	if rc != C.MEMZIP_OK {
		return toError(&c.st.err)
	}
	return nil
}

// Verify decodes a payload and compares it with the original block.
func (c *Codec) Verify(payload []byte, encoding, compressedBits uint32, original []byte) error {
	rc := C.memzip_verify(c.ptr, bytesPtr(payload), C.size_t(len(payload)), C.uint32_t(encoding),
		C.uint32_t(compressedBits), bytesPtr(original), C.size_t(len(original)), &c.st.err)
	if rc != C.MEMZIP_OK {
		return toError(&c.st.err)
	}
	return nil
}

// StatsJSON is the codec's statistics of every Compress so far.
func (c *Codec) StatsJSON() []byte {
	n := C.memzip_codec_stats_json(c.ptr, nil, 0)
	buf := make([]byte, int(n)+1)
	C.memzip_codec_stats_json(c.ptr, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	return buf[:n]
}

// Trace kinds (memzip's trace format).
const (
	TraceRead  = 0
	TraceWrite = 1
)

// Trace writes blocks in memzip's trace format, for `memzip analyze`.
type Trace struct {
	ptr *C.memzip_trace
	st  *state
}

// CreateTrace creates (truncates) a trace file of blockBytes blocks.
func CreateTrace(path string, blockBytes int) (*Trace, error) {
	st := (*state)(C.calloc(1, C.size_t(unsafe.Sizeof(state{}))))
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	ptr := C.memzip_trace_create(cpath, C.uint32_t(blockBytes), &st.err)
	if ptr == nil {
		err := toError(&st.err)
		C.free(unsafe.Pointer(st))
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	return &Trace{ptr: ptr, st: st}, nil
}

// Append records one block.
func (t *Trace) Append(kind uint8, source uint32, cycle, address uint64, block []byte) error {
	rc := C.memzip_trace_append(t.ptr, C.uint8_t(kind), C.uint32_t(source), C.uint64_t(cycle), C.uint64_t(address),
		bytesPtr(block), C.size_t(len(block)), &t.st.err)
	if rc != C.MEMZIP_OK {
		return toError(&t.st.err)
	}
	return nil
}

// Close finishes the file; a trace never closed cannot be read.
func (t *Trace) Close() error {
	if t.ptr == nil {
		return nil
	}
	C.memzip_trace_close(t.ptr, &t.st.err)
	err := toError(&t.st.err)
	C.free(unsafe.Pointer(t.st))
	t.ptr, t.st = nil, nil
	return err
}
