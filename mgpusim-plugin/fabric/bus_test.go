package fabric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v4/sim"
)

type testMsg struct{ sim.MsgMeta }

func (m *testMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }
func (m *testMsg) Clone() sim.Msg     { c := *m; return &c }

// agent sends the messages it is given at time 0 and records when each of
// the messages addressed to it arrives (in cycles).
type agent struct {
	*sim.TickingComponent
	port     sim.Port
	toSend   []sim.Msg
	arrivals map[string]uint64
	order    []string
	retrieve bool // take arrived messages out of the port (false: let it fill up)
}

func newAgent(name string, engine sim.Engine, retrieve bool) *agent {
	a := &agent{arrivals: map[string]uint64{}, retrieve: retrieve}
	a.TickingComponent = sim.NewTickingComponent(name, engine, sim.GHz, a)
	a.port = sim.NewPort(a, 4, 64, name+".Port")
	a.AddPort("Port", a.port)
	return a
}

func (a *agent) Tick() bool {
	progress := false
	for len(a.toSend) > 0 {
		if a.port.Send(a.toSend[0]) != nil {
			break
		}
		a.toSend = a.toSend[1:]
		progress = true
	}
	for a.retrieve {
		msg := a.port.RetrieveIncoming()
		if msg == nil {
			break
		}
		a.arrivals[msg.Meta().ID] = a.Freq.Cycle(a.Engine.CurrentTime())
		a.order = append(a.order, msg.Meta().ID)
		progress = true
	}
	return progress
}

func (a *agent) send(id string, to *agent, bytes int) {
	a.toSend = append(a.toSend, &testMsg{sim.MsgMeta{ID: id, Src: a.port.AsRemote(), Dst: to.port.AsRemote(), TrafficBytes: bytes}})
	a.TickLater()
}

type fixedDelays struct{ compress, decompress uint64 }

func (d fixedDelays) Delays(sim.Msg) (uint64, uint64) { return d.compress, d.decompress }

func newBus(t *testing.T, n int, cfg Config) (sim.Engine, *Bus, []*agent) {
	t.Helper()
	engine := sim.NewSerialEngine()
	bus, err := NewBus("Bus", engine, sim.GHz, cfg)
	if err != nil {
		t.Fatal(err)
	}
	agents := make([]*agent, n)
	for i := range agents {
		agents[i] = newAgent(fmt.Sprintf("A%d", i), engine, true)
		bus.PlugInEndpoint(agents[i].Name(), []sim.Port{agents[i].port})
	}
	return engine, bus, agents
}

func run(t *testing.T, engine sim.Engine) {
	t.Helper()
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
}

// The paper's example (§VI-B): at 20 bytes per cycle a 62-byte message takes
// 4 cycles, so it arrives 3 cycles after a 20-byte one sent the same way.
func TestSmallerMessagesTakeFewerCycles(t *testing.T) {
	arrival := map[int]uint64{}
	for _, bytes := range []int{20, 62, 80, 81} {
		engine, _, a := newBus(t, 2, PaperConfig())
		a[0].send("m", a[1], bytes)
		run(t, engine)
		arrival[bytes] = a[1].arrivals["m"]
	}
	if got := arrival[62] - arrival[20]; got != 3 {
		t.Errorf("62-byte message arrives %d cycles after a 20-byte one, want 3 (arrivals %v)", got, arrival)
	}
	if arrival[80] != arrival[62] || arrival[81] != arrival[80]+1 {
		t.Errorf("whole cycles per message: arrivals %v", arrival)
	}
}

// One message at a time: two senders' 62-byte messages arrive 4 cycles apart.
func TestOneMessageAtATime(t *testing.T) {
	engine, bus, a := newBus(t, 3, PaperConfig())
	a[0].send("x", a[2], 62)
	a[1].send("y", a[2], 62)
	run(t, engine)
	x, y := a[2].arrivals["x"], a[2].arrivals["y"]
	if y-x != 4 {
		t.Errorf("arrivals %d and %d, want 4 cycles apart", x, y)
	}
	if got := bus.Stats().Total(); got.Messages != 2 || got.Bytes != 124 || got.BusyCycles != 8 {
		t.Errorf("stats %+v", got)
	}
}

// Compression delays the sender, decompression the receiver.
func TestEdgeDelaysAddToTheTransfer(t *testing.T) {
	engine, _, a := newBus(t, 2, PaperConfig())
	a[0].send("m", a[1], 62)
	run(t, engine)
	plain := a[1].arrivals["m"]

	engine, bus, a := newBus(t, 2, PaperConfig())
	bus.SetEdgeDelays(fixedDelays{compress: 16, decompress: 9})
	a[0].send("m", a[1], 62)
	run(t, engine)
	if got := a[1].arrivals["m"] - plain; got != 25 {
		t.Errorf("delays added %d cycles, want 16 + 9", got)
	}
}

// Round-robin: senders with several messages each take turns.
func TestRoundRobinArbitration(t *testing.T) {
	engine, _, a := newBus(t, 4, PaperConfig())
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			a[i].send(fmt.Sprintf("%d.%d", i, j), a[3], 20)
		}
	}
	run(t, engine)
	want := []string{"0.0", "1.0", "2.0", "0.1", "1.1", "2.1"}
	if fmt.Sprint(a[3].order) != fmt.Sprint(want) {
		t.Errorf("delivery order %v, want %v", a[3].order, want)
	}
}

// A receiver that does not take its messages fills its port, then the
// bus's input buffer (4 KB, of which requests may take 4 KB less the 128
// bytes left to responses); the bus stops there and loses nothing.
func TestFullInputBufferHoldsTransfers(t *testing.T) {
	engine := sim.NewSerialEngine()
	bus, _ := NewBus("Bus", engine, sim.GHz, PaperConfig())
	src := newAgent("Src", engine, true)
	dst := newAgent("Dst", engine, false)
	bus.PlugInEndpoint("Src", []sim.Port{src.port})
	bus.PlugInEndpoint("Dst", []sim.Port{dst.port})
	for i := 0; i < 100; i++ {
		src.send(fmt.Sprint(i), dst, 1000)
	}
	run(t, engine)
	// 4 in the port's incoming buffer, 3 x 1000 bytes in the bus's input
	// buffer (a fourth would leave less than the response reserve).
	if got := bus.Stats().Total().Messages; got != 7 {
		t.Errorf("%d messages crossed, want 7 (4 in the port, 3 KB in the buffer)", got)
	}
	dst.retrieve = true
	dst.TickLater()
	run(t, engine)
	if len(dst.order) != 100 {
		t.Errorf("%d of 100 messages arrived after the receiver drained its port", len(dst.order))
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	if _, err := NewBus("Bus", sim.NewSerialEngine(), sim.GHz, Config{BytesPerCycle: 0, BufferBytes: 1}); err == nil {
		t.Error("zero bytes per cycle accepted")
	}
	cfg := PaperConfig()
	cfg.ResponseReserveBytes = cfg.BufferBytes
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "response reserve") {
		t.Errorf("a reserve as large as the buffer: %v", err)
	}
	cfg = PaperConfig()
	cfg.CodecIntervalCycles = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "codec interval") {
		t.Errorf("a negative interval: %v", err)
	}
}

type testRsp struct {
	sim.MsgMeta
	rspTo string
}

func (m *testRsp) Meta() *sim.MsgMeta { return &m.MsgMeta }
func (m *testRsp) Clone() sim.Msg     { c := *m; return &c }
func (m *testRsp) GetRspTo() string   { return m.rspTo }

// server is a GPU's RDMA engine in miniature: requests leave through its
// request port (where the responses come back), requests from the peer
// arrive at its data port, which answers each with a response of the same
// size and takes a request in only when it can send the answer.
type server struct {
	*sim.TickingComponent
	reqPort, dataPort sim.Port
	peer              sim.RemotePort // the peer's data port
	toSend, bytes     int
	responses         int
}

func newServer(name string, engine sim.Engine, requests, bytes int) *server {
	s := &server{toSend: requests, bytes: bytes}
	s.TickingComponent = sim.NewTickingComponent(name, engine, sim.GHz, s)
	s.reqPort = sim.NewPort(s, 2, 2, name+".Req")
	s.dataPort = sim.NewPort(s, 2, 2, name+".Data")
	return s
}

func (s *server) Tick() bool {
	progress := false
	for s.toSend > 0 {
		req := &testMsg{sim.MsgMeta{ID: fmt.Sprintf("%s.%d", s.Name(), s.toSend), Src: s.reqPort.AsRemote(),
			Dst: s.peer, TrafficBytes: s.bytes}}
		if s.reqPort.Send(req) != nil {
			break
		}
		s.toSend--
		progress = true
	}
	for s.reqPort.RetrieveIncoming() != nil {
		s.responses++
		progress = true
	}
	for s.dataPort.CanSend() {
		req := s.dataPort.RetrieveIncoming()
		if req == nil {
			break
		}
		s.dataPort.Send(&testRsp{sim.MsgMeta{ID: req.Meta().ID + ".rsp", Src: s.dataPort.AsRemote(),
			Dst: req.Meta().Src, TrafficBytes: s.bytes}, req.Meta().ID})
		progress = true
	}
	return progress
}

// floodEachOther runs two GPUs that flood each other with 200 requests of
// 1000 bytes, each request answered, and returns the responses each got.
func floodEachOther(t *testing.T, cfg Config) (int, int) {
	t.Helper()
	engine := sim.NewSerialEngine()
	bus, err := NewBus("Bus", engine, sim.GHz, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := newServer("A", engine, 200, 1000)
	b := newServer("B", engine, 200, 1000)
	a.peer, b.peer = b.dataPort.AsRemote(), a.dataPort.AsRemote()
	bus.PlugInEndpoint("A", []sim.Port{a.reqPort, a.dataPort})
	bus.PlugInEndpoint("B", []sim.Port{b.reqPort, b.dataPort})
	a.TickLater()
	b.TickLater()
	run(t, engine)
	return a.responses, b.responses
}

// Two GPUs that flood each other with requests, each request answered: the
// response lanes, sharing each buffer with the requests, let the answers
// through.
func TestRequestsAndResponsesDoNotDeadlock(t *testing.T) {
	if a, b := floodEachOther(t, PaperConfig()); a != 200 || b != 200 {
		t.Errorf("responses: A got %d, B got %d of 200", a, b)
	}
}

// The same with one FIFO per buffer: both input buffers fill with requests,
// both answers wait behind them, and the simulation stops with responses
// missing (the engine runs out of events). This is why the lanes exist.
func TestOneQueueDeadlocks(t *testing.T) {
	cfg := PaperConfig()
	cfg.oneQueue = true
	if a, b := floodEachOther(t, cfg); a == 200 && b == 200 {
		t.Errorf("one FIFO per buffer did not deadlock: A and B got all 200 responses")
	}
}

// codecArrivals sends three 20-byte messages from A0 to A1 with the given
// delays and returns when each arrived.
func codecArrivals(t *testing.T, cfg Config, d fixedDelays) []uint64 {
	t.Helper()
	engine, bus, a := newBus(t, 2, cfg)
	bus.SetEdgeDelays(d)
	for i := 0; i < 3; i++ {
		a[0].send(fmt.Sprint(i), a[1], 20)
	}
	run(t, engine)
	var got []uint64
	for i := 0; i < 3; i++ {
		got = append(got, a[1].arrivals[fmt.Sprint(i)])
	}
	return got
}

// One compressor per endpoint takes one message per latency: three messages
// of 16 compression cycles leave it 16 cycles apart (a 1-cycle transfer
// each), where unlimited compressors let all three leave together and the
// bus space them 1 cycle apart.
func TestOneCompressorTakesOneMessageAtATime(t *testing.T) {
	one := codecArrivals(t, PaperConfig(), fixedDelays{compress: 16})
	if one[1]-one[0] != 16 || one[2]-one[1] != 16 {
		t.Errorf("one compressor: arrivals %v, want 16 cycles apart", one)
	}
	cfg := PaperConfig()
	cfg.UnlimitedCodecs = true
	unlimited := codecArrivals(t, cfg, fixedDelays{compress: 16})
	if unlimited[1]-unlimited[0] != 1 || unlimited[2]-unlimited[1] != 1 {
		t.Errorf("unlimited compressors: arrivals %v, want 1 cycle apart", unlimited)
	}
	if unlimited[0] != one[0] {
		t.Errorf("the first message arrived at %d with unlimited compressors, %d with one", unlimited[0], one[0])
	}
}

// The decompressor likewise: 9 cycles per message at the receiver; and a
// pipelined unit (an initiation interval of 2) takes one every 2 cycles.
func TestOneDecompressorAndTheInitiationInterval(t *testing.T) {
	one := codecArrivals(t, PaperConfig(), fixedDelays{decompress: 9})
	if one[1]-one[0] != 9 || one[2]-one[1] != 9 {
		t.Errorf("one decompressor: arrivals %v, want 9 cycles apart", one)
	}
	cfg := PaperConfig()
	cfg.CodecIntervalCycles = 2
	piped := codecArrivals(t, cfg, fixedDelays{compress: 16, decompress: 9})
	if piped[1]-piped[0] != 2 || piped[2]-piped[1] != 2 {
		t.Errorf("interval 2: arrivals %v, want 2 cycles apart", piped)
	}
}
