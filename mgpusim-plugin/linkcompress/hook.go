// Package linkcompress is memzip's hook on MGPUSim's RDMA engines: the
// payload of every remote write request and every data-ready response is
// compressed at the sending GPU and decompressed at the receiving one, as in
// "Exploiting Adaptive Data Compression to Improve Performance and
// Energy-Efficiency of Compute Workloads in Multi-GPU Systems" (Tavana et
// al., IPDPS 2019), §V and §VI-B: "no matter what compression algorithm is
// used, we only compress the payload and the header is preserved"; a
// "Comp Alg" header field names the algorithm, and 0 ("not compressed")
// lets the receiver bypass its decompressor.
//
// The hook sits on the two outside ports of each GPU's RDMA engine (Akita
// port hooks, called as a message enters the port's outgoing buffer and as
// one is delivered to it), so it needs no change to MGPUSim:
//   - on send it compresses the payload with the sender's compressor and
//     shrinks the message's TrafficBytes, what every Akita fabric charges
//     link time by, to the header plus the byte-aligned algorithm field and
//     compressed payload;
//   - on delivery it decompresses with the receiver's decompressor and
//     hands the decoded block to the receiver in place of the sender's
//     bytes, so a wrong decode reaches the program (and its output check);
//     with Verify it also compares the block with the sender's payload and
//     stops the run at the first difference;
//   - the fabric asks it (fabric.EdgeDelays) how long each message spent in
//     the compressor and will spend in the decompressor.
//
// Each GPU has its own compressor and decompressor instance: a sender's
// hook runs on its RDMA engine's goroutine, a receiver's on the fabric's.
package linkcompress

import (
	"fmt"
	"sync"

	"github.com/sarchlab/akita/v4/mem/mem"
	"github.com/sarchlab/akita/v4/sim"

	"memzip/mgpusim-plugin/memzip"
	"memzip/mgpusim-plugin/platform"
)

// Config is the compression layer of a run.
type Config struct {
	Codec      string       // memzip codec spec; "none" installs nothing
	Costs      memzip.Costs // latency defaults (the paper's Table III for the fabric)
	Sizes      Sizes        // headers and BDI sizes (the paper's Fig. 4 and Table II for the fabric)
	TablePath  string       // offline E2MC table, or ""
	BlockBytes int          // payloads of this size are compressed (MGPUSim's 64-byte lines)
	// AlgFieldBits is the header field naming the algorithm (Fig. 4's
	// "Comp Alg (4b)"); under SizesMGPUSim it is added to every payload
	// message, compressed or not, and is what a codec costs a message it
	// cannot shrink; under SizesPaper004 the header holds it.
	AlgFieldBits int
	Verify       bool   // decompress every message and compare with its payload
	TracePath    string // write every payload to a memzip trace, or ""
	// CorruptPayload flips the last bit of the compressed bitstream of the
	// Nth whole-block payload sent (1-based; 0: none): a fault injection for
	// the tests, which check that -verify and the output check catch it.
	CorruptPayload uint64
	// HookNone installs the hook even for codec "none" without a trace
	// (every payload goes through memzip's none codec, raw, with no
	// algorithm field): it must change no cycle, and it measures what the
	// hook itself costs.
	HookNone bool
}

// PaperConfig is the paper's compression layer for a codec spec.
func PaperConfig(codec string) Config {
	return Config{Codec: codec, Costs: memzip.CostsPaper004, Sizes: SizesPaper004, BlockBytes: 64, AlgFieldBits: 4}
}

// Enabled says whether the config installs the hook: for a codec, for a
// payload trace, for the paper's header sizes (none included, so that none
// and the codecs carry the same headers), or on request.
func (c Config) Enabled() bool {
	return c.HookNone || c.TracePath != "" || !c.isNone() || c.Sizes == SizesPaper004
}

func (c Config) isNone() bool { return c.Codec == "" || c.Codec == "none" }

// Failure is what a run stops with when a check fails inside the
// simulation; the hook cannot return an error through Akita.
type Failure func(msg string)

// gpuSide is one GPU's compressor and decompressor.
type gpuSide struct {
	index        int // 1-based GPU id
	compressor   *memzip.Codec
	decompressor *memzip.Codec
}

// record follows one payload message from its sender to its receiver.
type record struct {
	kind     Kind
	src, dst int // GPU ids
	address  uint64
	info     memzip.BlockInfo
	// chargedBits is the payload's size as the link charges it (Sizes:
	// memzip's bitstream, or Table II's BDI sizes); info.CompressedBits is
	// the bitstream the decoder reads.
	chargedBits uint32
	wire        int  // payload bytes on the link (algorithm field included)
	raw         int  // payload bytes before compression
	full        bool // a whole block: compressed (other sizes travel raw)
	payload     []byte
	original    []byte // the message's data (Verify)
}

// Hook is the installed compression layer.
type Hook struct {
	cfg    Config
	gpus   []*gpuSide
	byPort map[sim.RemotePort]int // RDMA outside port -> GPU id
	clock  sim.TimeTeller
	fail   Failure

	mu        sync.Mutex
	inFlight  map[string]*record // message ID -> record
	free      []*record
	readAddrs map[string]uint64 // read request ID -> address, to name a data-ready payload's block
	stats     Stats
	charge    bitCharge
	sentFull  uint64 // whole-block payloads sent (for CorruptPayload)
	trace     *memzip.Trace
	traceErr  error
}

// Install puts the hook on every GPU's RDMA engine and, on the bus, makes
// the bus charge the compressor and decompressor latencies. With codec
// "none" it installs nothing (unless HookNone): the platform stays
// MGPUSim's own.
func Install(p *platform.Platform, cfg Config, fail Failure) (*Hook, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	if cfg.isNone() {
		// Without compression there is no algorithm to name: the payloads
		// keep their size (under SizesMGPUSim the run's timing is MGPUSim's).
		cfg.Codec, cfg.AlgFieldBits = "none", 0
	}
	h := &Hook{
		cfg:       cfg,
		byPort:    map[sim.RemotePort]int{},
		clock:     p.Simulation.GetEngine(),
		fail:      fail,
		inFlight:  map[string]*record{},
		readAddrs: map[string]uint64{},
	}
	for i, r := range p.RDMAs {
		side, err := h.newSide(i + 1)
		if err != nil {
			h.Close()
			return nil, err
		}
		h.gpus = append(h.gpus, side)
		for _, port := range []sim.Port{r.RDMARequestOutside, r.RDMADataOutside} {
			h.byPort[port.AsRemote()] = i + 1
			port.AcceptHook(&portHook{hook: h, gpu: side})
		}
	}
	h.stats.init(len(p.RDMAs), h.gpus[0].compressor)
	h.charge = newBitCharge(cfg.Sizes, h.gpus[0].compressor)
	if cfg.TracePath != "" {
		t, err := memzip.CreateTrace(cfg.TracePath, cfg.BlockBytes)
		if err != nil {
			h.Close()
			return nil, err
		}
		h.trace = t
	}
	if p.Bus != nil {
		p.Bus.SetEdgeDelays(h)
	}
	return h, nil
}

func (h *Hook) newSide(gpu int) (*gpuSide, error) {
	newCodec := func() (*memzip.Codec, error) {
		c, err := memzip.NewCodec(h.cfg.Codec, h.cfg.BlockBytes, 1, h.cfg.Costs, h.cfg.TablePath)
		if err != nil {
			return nil, fmt.Errorf("codec %q: %w", h.cfg.Codec, err)
		}
		return c, nil
	}
	comp, err := newCodec()
	if err != nil {
		return nil, err
	}
	decomp, err := newCodec()
	if err != nil {
		comp.Close()
		return nil, err
	}
	return &gpuSide{index: gpu, compressor: comp, decompressor: decomp}, nil
}

// Close finishes the trace and frees the codecs.
func (h *Hook) Close() error {
	if h == nil {
		return nil
	}
	for _, g := range h.gpus {
		g.compressor.Close()
		g.decompressor.Close()
	}
	h.gpus = nil
	err := h.traceErr
	if h.trace != nil {
		if cerr := h.trace.Close(); err == nil {
			err = cerr
		}
		h.trace = nil
	}
	return err
}

// Spec is the codec spec as memzip resolved it (every knob written out).
func (h *Hook) Spec() string { return h.gpus[0].compressor.Spec() }

// Delays implements fabric.EdgeDelays.
func (h *Hook) Delays(msg sim.Msg) (uint64, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.inFlight[msg.Meta().ID]
	if !ok {
		return 0, 0
	}
	return uint64(r.info.CompressCycles), uint64(r.info.DecompressCycles)
}

type portHook struct {
	hook *Hook
	gpu  *gpuSide
}

func (p *portHook) Func(ctx sim.HookCtx) {
	msg, ok := ctx.Item.(sim.Msg)
	if !ok {
		return
	}
	switch ctx.Pos {
	case sim.HookPosPortMsgSend:
		p.hook.onSend(p.gpu, msg)
	case sim.HookPosPortMsgRecvd:
		p.hook.onReceive(p.gpu, msg)
	}
}

// payloadOf names a message's kind and payload; ok is false for messages
// without one (read requests, write acknowledgements).
func payloadOf(msg sim.Msg) (kind Kind, data []byte, address uint64, ok bool) {
	switch m := msg.(type) {
	case *mem.WriteReq:
		return KindWrite, m.Data, m.Address, true
	case *mem.DataReadyRsp:
		return KindReadData, m.Data, 0, true
	}
	return 0, nil, 0, false
}

func (h *Hook) onSend(g *gpuSide, msg sim.Msg) {
	dst, toGPU := h.byPort[msg.Meta().Dst]
	if !toGPU {
		return // not between GPUs: left as MGPUSim sends it
	}
	kind, data, address, ok := payloadOf(msg)
	if !ok {
		// A read request or a write acknowledgement: only its header.
		msg.Meta().TrafficBytes = h.cfg.Sizes.headerBytes(msg, msg.Meta().TrafficBytes)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if kind == KindReadData {
		rsp := msg.(*mem.DataReadyRsp)
		address = h.readAddrs[rsp.RespondTo]
		delete(h.readAddrs, rsp.RespondTo)
	}
	r := h.newRecord(kind, g.index, dst, address, len(data))
	if r.full {
		if err := g.compressor.Compress(data, r.payload, &r.info); err != nil {
			h.fail(fmt.Sprintf("compressing a %s payload of GPU %d for GPU %d at address %#x with %s: %v",
				kind, g.index, dst, address, h.cfg.Codec, err))
			return
		}
		h.writeTrace(kind, g.index, address, data)
		h.sentFull++
		if h.sentFull == h.cfg.CorruptPayload && r.info.CompressedBits > 0 {
			last := (r.info.CompressedBits - 1) / 8
			r.payload[last] ^= 0x80 >> ((r.info.CompressedBits - 1) % 8)
		}
		r.chargedBits = h.charge.bits(r.info.Encoding, r.info.CompressedBits)
	} else {
		r.info = memzip.BlockInfo{CompressedBits: uint32(8 * len(data))}
		r.chargedBits = r.info.CompressedBits
	}
	if h.cfg.Verify {
		r.original = append(r.original[:0], data...)
	}
	r.wire = h.cfg.Sizes.payloadWireBytes(r.chargedBits, h.cfg.AlgFieldBits)
	header := h.cfg.Sizes.headerBytes(msg, msg.Meta().TrafficBytes-len(data))
	msg.Meta().TrafficBytes = header + r.wire
	h.inFlight[msg.Meta().ID] = r
	h.stats.sent(r, header)
}

func (h *Hook) onReceive(g *gpuSide, msg sim.Msg) {
	if req, ok := msg.(*mem.ReadReq); ok {
		if _, fromGPU := h.byPort[req.Src]; fromGPU {
			h.mu.Lock()
			h.readAddrs[req.ID] = req.Address
			h.mu.Unlock()
		}
		return
	}
	if _, _, _, ok := payloadOf(msg); !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.inFlight[msg.Meta().ID]
	if !ok {
		return
	}
	delete(h.inFlight, msg.Meta().ID)
	defer h.release(r)
	h.stats.received(r)
	if !r.full {
		return // a partial block travels raw: the receiver has the sender's bytes
	}
	decoded := make([]byte, h.cfg.BlockBytes) // the receiver keeps it: not from the pool
	n := r.info.PayloadBytes()
	if err := g.decompressor.Decompress(r.payload[:n], r.info.Encoding, r.info.CompressedBits, decoded); err != nil {
		h.fail(fmt.Sprintf("memzip decode: a %s payload from GPU %d to GPU %d at address %#x did not decode with %s: %v",
			r.kind, r.src, r.dst, r.address, h.cfg.Codec, err))
		return
	}
	if h.cfg.Verify {
		if i := firstDifference(decoded, r.original); i >= 0 {
			h.fail(fmt.Sprintf("memzip verify: a %s payload from GPU %d to GPU %d at address %#x decoded with %s differs from the sent block at byte %d (%#02x, sent %#02x)",
				r.kind, r.src, r.dst, r.address, h.cfg.Codec, i, decoded[i], r.original[i]))
			return
		}
		h.stats.Verified++
	}
	setPayload(msg, decoded)
}

// firstDifference is the first index where a and b differ, or -1.
func firstDifference(a, b []byte) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	if len(b) > len(a) {
		return len(a)
	}
	return -1
}

// setPayload gives the receiver the decoded block as the message's data.
func setPayload(msg sim.Msg, data []byte) {
	switch m := msg.(type) {
	case *mem.WriteReq:
		m.Data = data
	case *mem.DataReadyRsp:
		m.Data = data
	}
}

func (h *Hook) newRecord(kind Kind, src, dst int, address uint64, raw int) *record {
	var r *record
	if n := len(h.free); n > 0 {
		r, h.free = h.free[n-1], h.free[:n-1]
	} else {
		r = &record{payload: make([]byte, h.cfg.BlockBytes+8)}
	}
	r.kind, r.src, r.dst, r.address, r.raw = kind, src, dst, address, raw
	r.full = raw == h.cfg.BlockBytes
	r.info = memzip.BlockInfo{}
	return r
}

func (h *Hook) release(r *record) { h.free = append(h.free, r) }

func (h *Hook) writeTrace(kind Kind, src int, address uint64, data []byte) {
	if h.trace == nil || h.traceErr != nil {
		return
	}
	traceKind := uint8(memzip.TraceWrite)
	if kind == KindReadData {
		traceKind = memzip.TraceRead
	}
	cycle := (1 * sim.GHz).Cycle(h.clock.CurrentTime())
	if err := h.trace.Append(traceKind, uint32(src), cycle, address, data); err != nil {
		h.traceErr = err
	}
}
