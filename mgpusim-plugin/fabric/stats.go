package fabric

// Traffic counts what crossed the bus between two endpoints (or in total).
type Traffic struct {
	Messages   uint64 `json:"messages"`
	Bytes      uint64 `json:"bytes"`
	BusyCycles uint64 `json:"busy_cycles"`
}

func (t *Traffic) add(bytes int, cycles uint64) {
	t.Messages++
	t.Bytes += uint64(bytes)
	t.BusyCycles += cycles
}

// Stats is the bus's account of every transfer.
type Stats struct {
	names []string
	pairs [][]Traffic // [src][dst]
	total Traffic
}

func (s *Stats) addEndpoint(name string) {
	s.names = append(s.names, name)
	for i := range s.pairs {
		s.pairs[i] = append(s.pairs[i], Traffic{})
	}
	s.pairs = append(s.pairs, make([]Traffic, len(s.names)))
}

func (s *Stats) record(src, dst int, bytes int, cycles uint64) {
	s.pairs[src][dst].add(bytes, cycles)
	s.total.add(bytes, cycles)
}

// Total is every transfer together.
func (s *Stats) Total() Traffic { return s.total }

// PairTraffic is one direction between two endpoints.
type PairTraffic struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
	Traffic
}

// Pairs lists the directions that carried traffic, in endpoint order.
func (s *Stats) Pairs() []PairTraffic {
	var out []PairTraffic
	for i, row := range s.pairs {
		for j, t := range row {
			if t.Messages > 0 {
				out = append(out, PairTraffic{Src: s.names[i], Dst: s.names[j], Traffic: t})
			}
		}
	}
	return out
}
