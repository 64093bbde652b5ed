package linkcompress

import (
	"encoding/json"

	"memzip/mgpusim-plugin/memzip"
)

// Kind is what a payload message is.
type Kind int

// The two messages that carry data between GPUs (§VI-B, Fig. 4).
const (
	KindWrite    Kind = iota // a remote write request
	KindReadData             // a data-ready response to a remote read
	numKinds
)

func (k Kind) String() string {
	if k == KindWrite {
		return "write"
	}
	return "read_data"
}

// Counts is a tally of payload messages.
type Counts struct {
	Messages           uint64  `json:"messages"`
	CompressedMessages uint64  `json:"compressed_messages"`
	PayloadBytes       uint64  `json:"payload_bytes"`      // before compression
	CompressedBits     uint64  `json:"compressed_bits"`    // as charged (Sizes), algorithm field excluded
	WirePayloadBytes   uint64  `json:"wire_payload_bytes"` // on the link: byte-aligned, algorithm field included
	HeaderBytes        uint64  `json:"header_bytes"`       // the headers (Sizes: MGPUSim's or Fig. 4's)
	CompressCycles     uint64  `json:"compress_cycles"`
	DecompressCycles   uint64  `json:"decompress_cycles"`
	CompressPJ         float64 `json:"compress_pj"`
	DecompressPJ       float64 `json:"decompress_pj"`
}

func (c *Counts) add(r *record, header int) {
	c.Messages++
	if r.info.Encoding != 0 {
		c.CompressedMessages++
	}
	c.PayloadBytes += uint64(r.raw)
	c.CompressedBits += uint64(r.chargedBits)
	c.WirePayloadBytes += uint64(r.wire)
	c.HeaderBytes += uint64(header)
	c.CompressCycles += uint64(r.info.CompressCycles)
	c.DecompressCycles += uint64(r.info.DecompressCycles)
	c.CompressPJ += r.info.CompressPJ
	c.DecompressPJ += r.info.DecompressPJ
}

// RawCompressionRatio is payload bits over compressed bits.
func (c Counts) RawCompressionRatio() float64 { return ratio(8*c.PayloadBytes, c.CompressedBits) }

// WireCompressionRatio is payload bytes over what they took on the link.
func (c Counts) WireCompressionRatio() float64 { return ratio(c.PayloadBytes, c.WirePayloadBytes) }

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Stats is the hook's account of every payload message.
type Stats struct {
	gpus      int
	encodings []string
	byKind    [numKinds]Counts
	// byEncoding[kind][encoding id] counts the messages of full blocks.
	byEncoding [numKinds][]uint64
	pairs      []Counts // [(src-1)*gpus + dst-1]
	delivered  uint64
	Verified   uint64
}

func (s *Stats) init(gpus int, codec *memzip.Codec) {
	s.gpus = gpus
	s.encodings = codec.Encodings()
	for k := range s.byEncoding {
		s.byEncoding[k] = make([]uint64, len(s.encodings))
	}
	s.pairs = make([]Counts, gpus*gpus)
}

func (s *Stats) sent(r *record, header int) {
	s.byKind[r.kind].add(r, header)
	s.pairs[(r.src-1)*s.gpus+r.dst-1].add(r, header)
	if r.full && int(r.info.Encoding) < len(s.encodings) {
		s.byEncoding[r.kind][r.info.Encoding]++
	}
}

func (s *Stats) received(*record) { s.delivered++ }

// Total is both kinds together.
func (s *Stats) Total() Counts {
	var t Counts
	for _, c := range s.byKind {
		t.Messages += c.Messages
		t.CompressedMessages += c.CompressedMessages
		t.PayloadBytes += c.PayloadBytes
		t.CompressedBits += c.CompressedBits
		t.WirePayloadBytes += c.WirePayloadBytes
		t.HeaderBytes += c.HeaderBytes
		t.CompressCycles += c.CompressCycles
		t.DecompressCycles += c.DecompressCycles
		t.CompressPJ += c.CompressPJ
		t.DecompressPJ += c.DecompressPJ
	}
	return t
}

// Kind is one kind's counts.
func (s *Stats) Kind(k Kind) Counts { return s.byKind[k] }

type countsJSON struct {
	Counts
	RawCompressionRatio  float64           `json:"raw_compression_ratio"`
	WireCompressionRatio float64           `json:"wire_compression_ratio"`
	Encodings            map[string]uint64 `json:"encodings,omitempty"`
}

func withRatios(c Counts) countsJSON {
	return countsJSON{Counts: c, RawCompressionRatio: c.RawCompressionRatio(), WireCompressionRatio: c.WireCompressionRatio()}
}

type pairJSON struct {
	Src int `json:"src"`
	Dst int `json:"dst"`
	countsJSON
}

// Report is the statistics as they go into stats.json.
type Report struct {
	Total            countsJSON            `json:"total"`
	ByKind           map[string]countsJSON `json:"by_kind"`
	Pairs            []pairJSON            `json:"pairs"`
	VerifiedMessages uint64                `json:"verified_messages"`
	InFlightAtEnd    uint64                `json:"in_flight_at_end"`
	// Codecs is memzip's own statistics of each GPU's compressor (adaptive:
	// which algorithm it sampled, ran or bypassed how often).
	Codecs []json.RawMessage `json:"codecs"`
}

// Report gathers the statistics (call after the run).
func (h *Hook) Report() Report {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &h.stats
	r := Report{
		Total:            withRatios(s.Total()),
		ByKind:           map[string]countsJSON{},
		VerifiedMessages: s.Verified,
	}
	for k := Kind(0); k < numKinds; k++ {
		c := withRatios(s.byKind[k])
		c.Encodings = map[string]uint64{}
		for id, n := range s.byEncoding[k] {
			if n > 0 {
				c.Encodings[s.encodings[id]] = n
			}
		}
		r.ByKind[k.String()] = c
	}
	for i, c := range s.pairs {
		if c.Messages > 0 {
			r.Pairs = append(r.Pairs, pairJSON{Src: i/s.gpus + 1, Dst: i%s.gpus + 1, countsJSON: withRatios(c)})
		}
	}
	sent := s.Total().Messages
	if sent > s.delivered {
		r.InFlightAtEnd = sent - s.delivered
	}
	for _, g := range h.gpus {
		r.Codecs = append(r.Codecs, json.RawMessage(g.compressor.StatsJSON()))
	}
	return r
}
