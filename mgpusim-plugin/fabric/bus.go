// Package fabric models the inter-GPU fabric of "Exploiting Adaptive Data
// Compression to Improve Performance and Energy-Efficiency of Compute
// Workloads in Multi-GPU Systems" (Tavana et al., IPDPS 2019), §VI-B: one bus
// shared by the CPU and every GPU, "only one message can be sent at a time.
// Each message takes an integer number of cycles to transfer and no two
// messages can share the same cycle" (20 bytes per cycle at 1 GHz, Table VII's
// 160 Gb/s), round-robin arbitration, and a 4 KB input and a 4 KB output
// buffer at every CPU and GPU.
//
// The Bus is an Akita connection: components' ports plug into it, grouped by
// the device (endpoint) they belong to. A message leaves its port's outgoing
// buffer into its endpoint's output buffer, waits there for its compressor
// (EdgeDelays), crosses the bus in ceil(bytes / bytes-per-cycle) cycles, lands
// in the destination endpoint's input buffer, waits for its decompressor, and
// is delivered to its port. Space in the input buffer is taken when the
// transfer starts, so a transfer never finds its destination full.
//
// Requests and responses wait in separate lanes of each buffer, and the two
// lanes share the buffer's 4 KB: with one FIFO per buffer the bus deadlocks
// as soon as every input buffer fills with requests whose responses wait
// behind requests elsewhere (seen: a 510 x 510 SimpleConvolution stalled
// with its kernel half done; TestOneQueueDeadlocks). Requests may fill a
// buffer only up to its size less ResponseReserveBytes, and a response lane
// with nothing in it takes any one response, so a response always finds
// room; a response generates no further message, so a response lane always
// drains, and with it every request. The paper does not say how its buffers
// avoid this.
//
// Each endpoint has one compressor and one decompressor (the GPU's RDMA
// engine's, §V: "When a GPU RDMA receives a data packet with a 0-valued
// compression field, it simply bypasses the decompression stage"). Each takes
// one message at a time, in the order messages reach it, and takes the next
// one an initiation interval later: by default the message's own latency
// (Table III), a unit that is not pipelined. The paper gives no initiation
// interval; it says of C-Pack+Z's 16/9 cycles that "its latency cannot be
// hidden in our multi-GPU configuration" (§VII-A), which a unit that takes
// one line per latency reproduces and unlimited parallel units (every
// message's latency overlapped with the queue, Config.UnlimitedCodecs) do
// not.
package fabric

import (
	"fmt"
	"log"
	"strings"

	"github.com/sarchlab/akita/v4/sim"
)

// The paper's fabric (§VI-B, Table VII).
const (
	PaperBytesPerCycle = 20
	PaperBufferBytes   = 4096
	// PaperResponseReserveBytes is the part of a buffer requests leave to
	// responses: a data-ready message of a 64-byte line is at most 69 bytes
	// here (a 4-byte header, the line, the 4-bit algorithm field), so one
	// always fits beside the requests.
	PaperResponseReserveBytes = 128
)

// EdgeDelays gives the cycles a message spends in the sender's compressor
// before it may cross the bus, and in the receiver's decompressor after it
// crossed. The compression hook implements it; a message it knows nothing
// about has no delays.
type EdgeDelays interface {
	Delays(msg sim.Msg) (compressCycles, decompressCycles uint64)
}

// Config is the bus's shape.
type Config struct {
	BytesPerCycle int // bytes the bus moves per cycle
	// BufferBytes is the capacity of each endpoint's input and output
	// buffer, shared by its request and response lanes.
	BufferBytes int
	// ResponseReserveBytes is the part of each buffer requests may not take.
	ResponseReserveBytes int
	// UnlimitedCodecs gives every message a compressor and a decompressor of
	// its own, so latencies overlap without limit (memzip's model before
	// issue 53); false: one of each per endpoint (see the package comment).
	UnlimitedCodecs bool
	// CodecIntervalCycles is the initiation interval of each endpoint's
	// compressor and decompressor: 0 takes the next message when the
	// current one is done (its latency), N > 0 every N cycles (a pipeline).
	CodecIntervalCycles int
	// oneQueue puts requests and responses in one FIFO per buffer (the
	// design that deadlocks; tests only).
	oneQueue bool
}

// PaperConfig is §VI-B's bus with one compressor and one decompressor per
// endpoint, each taking one message per latency.
func PaperConfig() Config {
	return Config{BytesPerCycle: PaperBytesPerCycle, BufferBytes: PaperBufferBytes,
		ResponseReserveBytes: PaperResponseReserveBytes}
}

// CodecModel says in words how compression latency is modelled (for
// stats.json and run.json).
func (c Config) CodecModel() string {
	switch {
	case c.UnlimitedCodecs:
		return "unlimited: every message has its own compressor and decompressor"
	case c.CodecIntervalCycles == 0:
		return "one compressor and one decompressor per GPU, one message per latency (not pipelined)"
	default:
		return fmt.Sprintf("one compressor and one decompressor per GPU, pipelined: a message every %d cycles", c.CodecIntervalCycles)
	}
}

// Validate names the first field that cannot work.
func (c Config) Validate() error {
	if c.BytesPerCycle <= 0 {
		return fmt.Errorf("bus bytes per cycle must be positive, got %d", c.BytesPerCycle)
	}
	if c.BufferBytes <= 0 {
		return fmt.Errorf("bus buffer bytes must be positive, got %d", c.BufferBytes)
	}
	if c.ResponseReserveBytes < 0 || c.ResponseReserveBytes >= c.BufferBytes {
		return fmt.Errorf("bus response reserve must be 0..%d bytes (less than the buffer), got %d",
			c.BufferBytes-1, c.ResponseReserveBytes)
	}
	if c.CodecIntervalCycles < 0 {
		return fmt.Errorf("codec interval must be 0 (the latency) or positive, got %d", c.CodecIntervalCycles)
	}
	return nil
}

type queued struct {
	msg     sim.Msg
	bytes   int
	readyAt uint64 // cycle it may leave this buffer
}

// fifo is one lane's messages, oldest first.
type fifo struct {
	items []queued
}

// waiting: some message in the lane may not move before a later cycle.
func (f *fifo) waiting(now uint64) bool {
	for _, q := range f.items {
		if q.readyAt > now {
			return true
		}
	}
	return false
}

// A lane separates message classes in every buffer (see the package comment).
type lane int

const (
	requestLane lane = iota
	responseLane
	numLanes
)

// buffer is an endpoint's input or output buffer: two lanes sharing capBytes.
type buffer struct {
	lanes    [numLanes]fifo
	bytes    int
	capBytes int
	reserve  int // bytes requests leave to responses
	oneQueue bool
}

func newBuffer(cfg Config) buffer {
	return buffer{capBytes: cfg.BufferBytes, reserve: cfg.ResponseReserveBytes, oneQueue: cfg.oneQueue}
}

// laneOf is the lane msg waits in.
func (b *buffer) laneOf(msg sim.Msg) lane {
	if _, ok := msg.(sim.Rsp); ok && !b.oneQueue {
		return responseLane
	}
	return requestLane
}

// fits says whether a message of this many bytes may enter lane l. An empty
// buffer takes any one message (a message larger than the buffer must still
// move), and so does an empty response lane (a response always finds room).
func (b *buffer) fits(l lane, bytes int) bool {
	if b.bytes == 0 {
		return true
	}
	if l == responseLane {
		return len(b.lanes[l].items) == 0 || b.bytes+bytes <= b.capBytes
	}
	limit := b.capBytes
	if !b.oneQueue {
		limit -= b.reserve
	}
	return b.bytes+bytes <= limit
}

func (b *buffer) waiting(now uint64) bool {
	return b.lanes[requestLane].waiting(now) || b.lanes[responseLane].waiting(now)
}

func (b *buffer) push(l lane, q queued) {
	b.lanes[l].items = append(b.lanes[l].items, q)
	b.bytes += q.bytes
}

func (b *buffer) removeAt(l lane, i int) {
	f := &b.lanes[l]
	b.bytes -= f.items[i].bytes
	copy(f.items[i:], f.items[i+1:])
	f.items[len(f.items)-1] = queued{}
	f.items = f.items[:len(f.items)-1]
}

// codecUnit is one compressor or decompressor: it takes one message at a
// time (see the package comment).
type codecUnit struct {
	freeAt uint64 // first cycle it can take the next message
}

// finish is when a message that reaches the unit at cycle at and needs
// latency cycles leaves it. A message with no latency (nothing to
// compress, or "not compressed") bypasses the unit.
func (u *codecUnit) finish(cfg *Config, at, latency uint64) uint64 {
	if latency == 0 || cfg.UnlimitedCodecs {
		return at + latency
	}
	start := max(at, u.freeAt)
	interval := latency
	if cfg.CodecIntervalCycles > 0 {
		interval = uint64(cfg.CodecIntervalCycles)
	}
	u.freeAt = start + interval
	return start + latency
}

type endpoint struct {
	index        int
	name         string
	ports        []sim.Port
	out, in      buffer
	compressor   codecUnit
	decompressor codecUnit
}

// Bus is the paper's shared bus (see the package comment).
type Bus struct {
	*sim.TickingComponent

	cfg        Config
	delays     EdgeDelays
	endpoints  []*endpoint
	byPort     map[sim.RemotePort]*endpoint
	nextSender int    // round-robin pointer
	busyUntil  uint64 // first cycle the bus is free again

	stats Stats
}

// NewBus builds a bus ticking at freq (the paper's runs at 1 GHz).
func NewBus(name string, engine sim.Engine, freq sim.Freq, cfg Config) (*Bus, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bus{cfg: cfg, byPort: make(map[sim.RemotePort]*endpoint)}
	b.TickingComponent = sim.NewTickingComponent(name, engine, freq, b)
	return b, nil
}

// SetEdgeDelays installs the compressor/decompressor delays (nil: none).
func (b *Bus) SetEdgeDelays(d EdgeDelays) { b.delays = d }

// PlugInEndpoint connects one device's ports as one endpoint: they share the
// device's input and output buffer and its turn in the arbitration.
func (b *Bus) PlugInEndpoint(name string, ports []sim.Port) {
	ep := &endpoint{index: len(b.endpoints), name: name, ports: ports, out: newBuffer(b.cfg), in: newBuffer(b.cfg)}
	for _, p := range ports {
		if _, dup := b.byPort[p.AsRemote()]; dup {
			log.Panicf("fabric: port %s plugged in twice", p.AsRemote())
		}
		b.byPort[p.AsRemote()] = ep
		p.SetConnection(b)
	}
	b.endpoints = append(b.endpoints, ep)
	b.stats.addEndpoint(name)
}

// PlugIn connects a port as an endpoint of its own.
func (b *Bus) PlugIn(port sim.Port) { b.PlugInEndpoint(string(port.AsRemote()), []sim.Port{port}) }

// Unplug is not supported: the platform is fixed for a run.
func (b *Bus) Unplug(port sim.Port) { log.Panicf("fabric: cannot unplug %s", port.AsRemote()) }

// NotifyAvailable is called when a port's incoming buffer has room again.
func (b *Bus) NotifyAvailable(sim.Port) { b.TickLater() }

// NotifySend is called when a port has a message to send.
func (b *Bus) NotifySend() { b.TickLater() }

// Config is the bus's shape.
func (b *Bus) Config() Config { return b.cfg }

// Stats returns what the bus has counted so far.
func (b *Bus) Stats() *Stats { return &b.stats }

// Occupancy lists what waits in each endpoint's buffers (messages per lane,
// requests/responses), for a message when a run stops.
func (b *Bus) Occupancy() string {
	var parts []string
	for _, ep := range b.endpoints {
		parts = append(parts, fmt.Sprintf("%s out %d/%d in %d/%d", ep.name,
			len(ep.out.lanes[requestLane].items), len(ep.out.lanes[responseLane].items),
			len(ep.in.lanes[requestLane].items), len(ep.in.lanes[responseLane].items)))
	}
	return strings.Join(parts, ", ")
}

// Tick moves messages into output buffers, starts a transfer when the bus is
// free, and delivers what has arrived and been decompressed.
func (b *Bus) Tick() bool {
	now := b.Freq.Cycle(b.Engine.CurrentTime())
	progress := b.pull(now)
	progress = b.transmit(now) || progress
	progress = b.deliver(now) || progress
	return progress || b.pending(now)
}

// pending: something waits for its time to come (a transfer in progress, a
// compressor or decompressor at work), so the bus must keep ticking. A
// message that waits for room in a port is not pending: the port calls
// NotifyAvailable when it has room.
func (b *Bus) pending(now uint64) bool {
	if now < b.busyUntil {
		return true
	}
	for _, ep := range b.endpoints {
		if ep.out.waiting(now) || ep.in.waiting(now) {
			return true
		}
	}
	return false
}

func (b *Bus) pull(now uint64) bool {
	progress := false
	for _, ep := range b.endpoints {
		for _, port := range ep.ports {
			for {
				msg := port.PeekOutgoing()
				if msg == nil {
					break
				}
				bytes := wireBytes(msg)
				l := ep.out.laneOf(msg)
				if !ep.out.fits(l, bytes) {
					break
				}
				port.RetrieveOutgoing()
				compress := uint64(0)
				if b.delays != nil {
					compress, _ = b.delays.Delays(msg)
				}
				ready := ep.compressor.finish(&b.cfg, now, compress)
				ep.out.push(l, queued{msg: msg, bytes: bytes, readyAt: ready})
				progress = true
			}
		}
	}
	return progress
}

// transmit starts the next transfer in round-robin order among the endpoints
// with a message that is ready and fits into its destination's input buffer:
// the oldest response of an endpoint first, else its oldest request.
func (b *Bus) transmit(now uint64) bool {
	if now < b.busyUntil {
		return false
	}
	n := len(b.endpoints)
	for i := 0; i < n; i++ {
		src := b.endpoints[(b.nextSender+i)%n]
		for _, l := range [...]lane{responseLane, requestLane} {
			if b.startTransfer(now, src, l) {
				b.nextSender = (src.index + 1) % n
				return true
			}
		}
	}
	return false
}

// startTransfer starts the transfer of the oldest message of src's lane l.
// The bus carries one message at a time, so messages reach a decompressor
// in the order their transfers start.
func (b *Bus) startTransfer(now uint64, src *endpoint, l lane) bool {
	out := &src.out.lanes[l]
	if len(out.items) == 0 {
		return false
	}
	head := out.items[0]
	dst := b.destination(head.msg)
	if head.readyAt > now || !dst.in.fits(l, head.bytes) {
		return false
	}
	src.out.removeAt(l, 0)
	cycles := b.transferCycles(head.bytes)
	decompress := uint64(0)
	if b.delays != nil {
		_, decompress = b.delays.Delays(head.msg)
	}
	ready := dst.decompressor.finish(&b.cfg, now+cycles, decompress)
	dst.in.push(l, queued{msg: head.msg, bytes: head.bytes, readyAt: ready})
	b.busyUntil = now + cycles
	b.stats.record(src.index, dst.index, head.bytes, cycles)
	return true
}

// transferCycles is §VI-B's rule: whole cycles, at least one per message.
func (b *Bus) transferCycles(bytes int) uint64 {
	cycles := (bytes + b.cfg.BytesPerCycle - 1) / b.cfg.BytesPerCycle
	if cycles < 1 {
		cycles = 1
	}
	return uint64(cycles)
}

// deliver hands every arrived message to its port, oldest first; a port that
// is full holds back only the messages behind it for the same port.
func (b *Bus) deliver(now uint64) bool {
	progress := false
	for _, ep := range b.endpoints {
		for l := lane(0); l < numLanes; l++ {
			progress = b.deliverLane(now, ep, l) || progress
		}
	}
	return progress
}

func (b *Bus) deliverLane(now uint64, ep *endpoint, l lane) bool {
	progress := false
	var blocked []sim.RemotePort
	in := &ep.in.lanes[l]
	for i := 0; i < len(in.items); {
		q := in.items[i]
		dst := q.msg.Meta().Dst
		if q.readyAt > now || contains(blocked, dst) {
			i++
			continue
		}
		if err := b.portOf(ep, dst).Deliver(q.msg); err != nil {
			blocked = append(blocked, dst)
			i++
			continue
		}
		ep.in.removeAt(l, i)
		progress = true
	}
	return progress
}

func contains(ports []sim.RemotePort, p sim.RemotePort) bool {
	for _, q := range ports {
		if q == p {
			return true
		}
	}
	return false
}

func (b *Bus) destination(msg sim.Msg) *endpoint {
	ep, ok := b.byPort[msg.Meta().Dst]
	if !ok {
		log.Panicf("fabric: message %s from %s to %s: no such port on the bus",
			msg.Meta().ID, msg.Meta().Src, msg.Meta().Dst)
	}
	return ep
}

func (b *Bus) portOf(ep *endpoint, name sim.RemotePort) sim.Port {
	for _, p := range ep.ports {
		if p.AsRemote() == name {
			return p
		}
	}
	log.Panicf("fabric: port %s is not on endpoint %s", name, ep.name)
	return nil
}

// wireBytes is what a message occupies on the bus: Akita's TrafficBytes
// (payload plus header; the compression hook shrinks it).
func wireBytes(msg sim.Msg) int {
	return msg.Meta().TrafficBytes
}
