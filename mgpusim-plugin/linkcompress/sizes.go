package linkcompress

import (
	"strings"

	"github.com/sarchlab/akita/v4/mem/mem"
	"github.com/sarchlab/akita/v4/sim"

	"memzip/mgpusim-plugin/memzip"
)

// Sizes chooses what a message costs on the link besides its compressed
// payload: MGPUSim's headers with the algorithm field added to the payload,
// or the paper's (-costs paper004).
type Sizes int

const (
	// SizesMGPUSim keeps MGPUSim's headers (Akita's: a request 12 bytes, a
	// response 4) and adds AlgFieldBits to every payload.
	SizesMGPUSim Sizes = iota
	// SizesPaper004 uses the headers of Fig. 4 of "Exploiting Adaptive Data
	// Compression to Improve Performance and Energy-Efficiency of Compute
	// Workloads in Multi-GPU Systems" (Tavana et al., IPDPS 2019), which
	// hold the "Comp Alg (4b)" field, and Table II's BDI sizes.
	SizesPaper004
)

// Fig. 4's headers in bytes: Read Req 4+16+48+32+28 bits, Write Req
// 4+16+48+32+4, Data Ready 4+16+4+8, Write ACK 4+16+12. The algorithm field
// is inside the Write and Data-Ready headers.
const (
	paperReadHeader      = 16
	paperWriteHeader     = 13
	paperDataReadyHeader = 4
	paperWriteAckHeader  = 4
)

func (s Sizes) String() string {
	if s == SizesPaper004 {
		return "paper004"
	}
	return "mgpusim"
}

// Describe says in words what the sizes are (run.json).
func (s Sizes) Describe() string {
	if s == SizesPaper004 {
		return "Fig. 4 headers (read 16 B, write 13 B, data-ready 4 B, write-ack 4 B, the 4-bit algorithm field inside); Table II BDI sizes (a zero block 4 bits, every other BDI encoding its 4-bit prefix added)"
	}
	return "MGPUSim headers (requests 12 B, responses 4 B); the algorithm field added to each payload; memzip's BDI sizes"
}

// headerBytes is what msg's header costs on the link, given the header
// MGPUSim gave it.
func (s Sizes) headerBytes(msg sim.Msg, mgpusimHeader int) int {
	if s != SizesPaper004 {
		return mgpusimHeader
	}
	switch msg.(type) {
	case *mem.ReadReq:
		return paperReadHeader
	case *mem.WriteReq:
		return paperWriteHeader
	case *mem.DataReadyRsp:
		return paperDataReadyHeader
	case *mem.WriteDoneRsp:
		return paperWriteAckHeader
	}
	return mgpusimHeader
}

// payloadWireBytes is what a payload of this many bits costs on the link:
// whole bytes, with the algorithm field when the header does not hold it.
func (s Sizes) payloadWireBytes(bits uint32, algFieldBits int) int {
	if s == SizesPaper004 {
		algFieldBits = 0 // in the header (Fig. 4)
	}
	return (algFieldBits + int(bits) + 7) / 8
}

// bitCharge turns the size of a codec's encoding into the size the link
// charges: memzip's own, or, for BDI under SizesPaper004, Table II's.
type bitCharge struct {
	bdiZeros []bool // by encoding id: BDI's zero-block encoding
	bdiOther []bool // by encoding id: another compressed BDI encoding
}

// newBitCharge reads which of a codec's encodings are BDI's (a bdi codec's
// own, or an adaptive codec's "bdi/..." ones).
func newBitCharge(s Sizes, codec *memzip.Codec) bitCharge {
	names := codec.Encodings()
	c := bitCharge{bdiZeros: make([]bool, len(names)), bdiOther: make([]bool, len(names))}
	if s != SizesPaper004 {
		return c
	}
	plainBDI := strings.SplitN(codec.Spec(), ":", 2)[0] == "bdi"
	for id, name := range names {
		local, isBDI := strings.CutPrefix(name, "bdi/")
		if plainBDI && id > 0 {
			local, isBDI = name, true
		}
		if !isBDI {
			continue
		}
		c.bdiZeros[id] = local == "zeros"
		c.bdiOther[id] = local != "zeros"
	}
	return c
}

// Table II (BDI): a zero block is its 4-bit prefix alone ("0 + 4 bits";
// memzip stores one zero byte so its decoder can reject truncation), and
// every other pattern carries its 4-bit prefix beside the base, bitmask and
// deltas memzip counts (e.g. base 8 bytes, delta 1 byte: "128 + 12 bits",
// memzip's 136 bits plus 4).
const bdiPrefixBits = 4

func (c bitCharge) bits(encoding, memzipBits uint32) uint32 {
	switch {
	case int(encoding) < len(c.bdiZeros) && c.bdiZeros[encoding]:
		return bdiPrefixBits
	case int(encoding) < len(c.bdiOther) && c.bdiOther[encoding]:
		return memzipBits + bdiPrefixBits
	}
	return memzipBits
}
