package linkcompress

import (
	"testing"

	"github.com/sarchlab/akita/v4/mem/mem"
	"github.com/sarchlab/akita/v4/sim"

	"memzip/mgpusim-plugin/memzip"
)

// Fig. 4's headers under SizesPaper004 (16 / 13 / 4 / 4 bytes), MGPUSim's
// (Akita's TrafficBytes less the data) otherwise.
func TestHeaderBytes(t *testing.T) {
	line := make([]byte, 64)
	read := mem.ReadReqBuilder{}.WithAddress(0x1000).WithByteSize(64).Build()
	write := mem.WriteReqBuilder{}.WithAddress(0x1000).WithData(line).Build()
	ready := mem.DataReadyRspBuilder{}.WithData(line).Build()
	ack := mem.WriteDoneRspBuilder{}.Build()
	for _, c := range []struct {
		msg            sim.Msg
		mgpusim, paper int
	}{
		{read, 12, 16}, {write, 12, 13}, {ready, 4, 4}, {ack, 4, 4},
	} {
		header := c.msg.Meta().TrafficBytes - len(payloadBytes(c.msg))
		if got := SizesMGPUSim.headerBytes(c.msg, header); got != c.mgpusim {
			t.Errorf("%T: MGPUSim header %d bytes, want %d", c.msg, got, c.mgpusim)
		}
		if got := SizesPaper004.headerBytes(c.msg, header); got != c.paper {
			t.Errorf("%T: paper header %d bytes, want %d", c.msg, got, c.paper)
		}
	}
}

func payloadBytes(msg sim.Msg) []byte {
	_, data, _, _ := payloadOf(msg)
	return data
}

// The payload on the link: whole bytes of the bitstream, plus the 4-bit
// algorithm field unless the header holds it (Fig. 4).
func TestPayloadWireBytes(t *testing.T) {
	for _, c := range []struct {
		sizes     Sizes
		bits      uint32
		algBits   int
		wireBytes int
	}{
		{SizesMGPUSim, 512, 4, 65}, // raw line: 516 bits
		{SizesMGPUSim, 136, 4, 18}, // BDI base8_delta1: 140 bits
		{SizesMGPUSim, 4, 4, 1},
		{SizesMGPUSim, 512, 0, 64},
		{SizesPaper004, 512, 4, 64}, // the field is in the header
		{SizesPaper004, 140, 4, 18},
		{SizesPaper004, 4, 4, 1},
	} {
		if got := c.sizes.payloadWireBytes(c.bits, c.algBits); got != c.wireBytes {
			t.Errorf("%s: %d bits with a %d-bit field: %d bytes, want %d", c.sizes, c.bits, c.algBits, got, c.wireBytes)
		}
	}
}

// Table II's BDI sizes: a zero block 4 bits, base 8 / delta 1 "128 + 12
// bits" (memzip's 136 plus the 4-bit prefix), under SizesPaper004 only, for
// bdi and for adaptive's BDI encodings; other codecs unchanged.
func TestBDIChargesTableII(t *testing.T) {
	zeros := make([]byte, 64)
	deltas := make([]byte, 64)
	for i := 0; i < 8; i++ {
		deltas[8*i] = byte(i) // words 0..7: base 8, delta 1 from the zero base
		deltas[8*i+7] = 0x40  // and a large common base
	}
	for _, c := range []struct {
		codec, sizes string
		block        []byte
		wantBits     func(memzipBits uint32) uint32
	}{
		{"bdi", "paper", zeros, func(uint32) uint32 { return 4 }},
		{"bdi", "paper", deltas, func(b uint32) uint32 { return b + 4 }},
		{"bdi", "mgpusim", zeros, func(b uint32) uint32 { return b }},
		{"adaptive:lambda=32", "paper", zeros, func(uint32) uint32 { return 4 }},
		{"fpc", "paper", deltas, func(b uint32) uint32 { return b }},
	} {
		sizes := SizesMGPUSim
		if c.sizes == "paper" {
			sizes = SizesPaper004
		}
		codec, err := memzip.NewCodec(c.codec, 64, 1, memzip.CostsPaper004, "")
		if err != nil {
			t.Fatal(err)
		}
		var info memzip.BlockInfo
		payload := make([]byte, 72)
		if err := codec.Compress(c.block, payload, &info); err != nil {
			t.Fatal(err)
		}
		charge := newBitCharge(sizes, codec)
		if got, want := charge.bits(info.Encoding, info.CompressedBits), c.wantBits(info.CompressedBits); got != want || info.Encoding == 0 {
			t.Errorf("%s (%s sizes), encoding %s of %d bits: charged %d, want %d", c.codec, c.sizes,
				codec.EncodingName(info.Encoding), info.CompressedBits, got, want)
		}
		codec.Close()
	}
}
