// memzip_hooks: gpgpu-sim's memory partitions -> memzip's memory-controller
// model (Rust, through the cxx bridge in rust/memzip-ffi). See memzip_hooks.h
// for where each hook is called from. The modelling decisions live in
// rust/memzip/src/mc/controller.rs; this file forwards events and applies the
// numbers it gets back. Modelling choices made here:
//
// - Every DRAM request goes through memzip and is counted by its access type
//   and size. A request of one whole block (-memzip_block_bytes, the L2
//   line) is a block read or write-back; any other (a sectored L2's sector
//   reads, a line written back with some sectors dirty, partial writes) is a
//   request for part of its block, which memzip sizes and times as
//   rust/memzip/src/mc/controller/partial.rs describes (a sector read of a
//   compressed block fetches the whole stored block; a partial write of one
//   reads it back first under -memzip_partial_writes rmw). Under none both
//   move exactly the simulator's bytes.
// - Block contents come from the functional memory at the moment the request
//   is issued to DRAM. The functional model runs ahead of the timing model,
//   so the value compressed may be newer than the one in flight (e.g. a later
//   kernel store already applied); the papers' trace-driven models have the
//   same approximation.
// - Write-back: compress (write_block); the DRAM write is sized to the
//   compressed bursts and the compression latency delays the request in the
//   partition's DRAM latency queue, which memzip_latency_queue_insert keeps
//   in ready-cycle order: requests behind a write in the compressor pass it
//   (a pipelined compressor; stores do not stall loads, E2MC section III-B3).
// - Read: the metadata-cache lookup latency delays the request the same way;
//   the DRAM read is sized to the stored encoding's bursts; the decompression
//   latency is applied on the return path in a delay queue, also in
//   ready-cycle order (a block stored raw does not wait behind blocks in the
//   decompressor), before the reply enters the DRAM->L2 queue.
// - A metadata-cache miss (fill and dirty write-back) is a real extra DRAM
//   access of one atom each; it is modelled as extra bytes of the same DRAM
//   request (more column bursts on the same row), not as a separate request
//   with its own row activation.
// - Controllers are keyed by the partition-local address
//   (linear_to_raw_address_translation::partition_address), so consecutive
//   blocks of one controller share metadata-cache lines, as in hardware,
//   unless the address mapping puts channel bits inside a block (then the
//   global address is used; a note is printed at start).
// - Host-to-device copies compress every overlapped block (copy_block),
//   initialising the metadata; device-to-host copies, device-to-device
//   copies and memsets are not modelled (they do not go through
//   gpgpu_t::memcpy_to_gpu).
// - Approximable data (-memzip_approx_allocs, for a lossy codec such as SLC):
//   every device allocation is reported to memzip, which numbers them and
//   marks the listed ones; for each block written back or copied memzip
//   decides whether it is approximable and how it is stored. A block stored
//   approximated is written into the functional memory as it will read back,
//   so later loads, later kernels and the program's output see the
//   approximation, as they would on the hardware. (An exact copy of the line
//   that stays in the L2 would still be read there; the functional memory
//   has one copy, so such reads see the approximation a little early.)
// - Latencies come in memory-controller cycles (the papers count them at the
//   GTX580's 1002 MHz, -memzip_latency_mhz) and are converted to core cycles,
//   the clock of the partition's DRAM latency queue, rounding up.
// - -memzip_codec none keeps every request's size and adds no cycle: the
//   simulator's statistics stay identical to an unpatched build.
#include "memzip_hooks.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "../cuda-sim/memory.h"
#include "../option_parser.h"
#include "dram.h"
#include "dram_sched.h"
#include "gpu-cache.h"
#include "gpu-sim.h"
#include "l2cache.h"
#include "mem_fetch.h"

#include "memzip-ffi/src/lib.rs.h"

// The simulator generations this shim builds into name a few things
// differently; everything version-specific is here. MEMZIP_GPGPUSIM_V3 comes
// from gpu-sim.h of the v3.2.1 patch; without it, the dev branch.
namespace {
#ifdef MEMZIP_GPGPUSIM_V3
// v3: global cycle counters, unsectored L2 (the atom is the line), no
// sub-partitions, only the detailed DRAM model.
unsigned long long sim_cycle(const gpgpu_sim *) { return gpu_sim_cycle + gpu_tot_sim_cycle; }
unsigned l2_atom_bytes(const memory_config &c) { return c.m_L2_config.get_line_sz(); }
unsigned sub_partition_of(const addrdec_t &) { return 0; }
unsigned slices_per_channel(const memory_config &) { return 1; }
bool uses_simple_dram_model(const memory_config &) { return false; }
// v3.2.1 has no mem_access_type_str; its enum, in order.
const char *access_type_name(enum mem_access_type type) {
  static const char *const names[] = {"GLOBAL_ACC_R", "LOCAL_ACC_R", "CONST_ACC_R",  "TEXTURE_ACC_R",
                                      "GLOBAL_ACC_W", "LOCAL_ACC_W", "L1_WRBK_ACC", "L2_WRBK_ACC",
                                      "INST_ACC_R",   "L2_WR_ALLOC_R"};
  return (unsigned)type < sizeof(names) / sizeof(names[0]) ? names[type] : "OTHER";
}
#else
unsigned long long sim_cycle(const gpgpu_sim *g) { return g->gpu_sim_cycle + g->gpu_tot_sim_cycle; }
unsigned l2_atom_bytes(const memory_config &c) { return c.m_L2_config.get_atom_sz(); }
unsigned sub_partition_of(const addrdec_t &t) { return t.sub_partition; }
unsigned slices_per_channel(const memory_config &c) { return c.m_n_sub_partition_per_memory_channel; }
bool uses_simple_dram_model(const memory_config &c) { return c.simple_dram_model; }
const char *access_type_name(enum mem_access_type type) { return mem_access_type_str(type); }
#endif

// A block's address within its channel, the key of its metadata in the
// channel's controller. gpgpu-sim's partition_address() removes the channel
// bits and, on dev, the sub-partition bits too (each L2 slice indexes its
// lines by it), but one memzip controller serves every slice of its channel:
// the slice goes back in, or the two blocks of a 256-byte chunk (GTX580:
// address bit 7 picks the slice) would share one key.
unsigned long long channel_addr(const memory_config &c, unsigned long long addr, unsigned block_bytes) {
  addrdec_t tlx;
  c.m_address_mapping.addrdec_tlx(addr, &tlx);
  const unsigned slices = slices_per_channel(c);
  const unsigned long long partition_addr = c.m_address_mapping.partition_address(addr);
  return (partition_addr / block_bytes * slices + sub_partition_of(tlx) % slices) * block_bytes +
         partition_addr % block_bytes;
}
}  // namespace

namespace {

[[noreturn]] void memzip_fatal(const char *what) {
  fflush(stdout);
  fprintf(stderr, "GPGPU-Sim memzip: ERROR %s\n", what);
  fflush(stderr);
  exit(1);
}

rust::Slice<const std::uint8_t> bytes(const unsigned char *data, size_t n) {
  return rust::Slice<const std::uint8_t>(data, n);
}

std::string cstr(const char *s) { return s ? std::string(s) : std::string(); }

// Every live GPU state, for the trace's atexit flush.
std::vector<memzip_gpu_state *> &live_states() {
  static std::vector<memzip_gpu_state *> states;
  return states;
}

void finish_traces_at_exit();

}  // namespace

struct memzip_partition::controller {
  explicit controller(rust::Box<memzip::Controller> c) : box(std::move(c)) {}
  rust::Box<memzip::Controller> box;
};

struct memzip_gpu_state {
  explicit memzip_gpu_state(rust::Box<memzip::Simulation> s)
      : sim(std::move(s)), settings(sim->settings()) {}
  rust::Box<memzip::Simulation> sim;  // the flags, resolved once; builds the controllers
  memzip::Settings settings;
  unsigned block_bytes = 128;
  bool use_partition_addr = true;
  std::string stats_json;
  std::vector<memzip_partition *> partitions;  // by partition id
  std::unique_ptr<rust::Box<memzip::Tracer>> tracer;
  unsigned long long sampling_at = 0;  // instructions; 0: nothing samples
  gpgpu_sim *gpu = nullptr;

  void record(unsigned long long cycle, std::uint8_t kind, unsigned ctrl,
              unsigned long long addr, const unsigned char *data) {
    try {
      (*tracer)->record(cycle, kind, ctrl, addr, bytes(data, block_bytes));
    } catch (const std::exception &e) {
      memzip_fatal(e.what());
    }
  }

  // E2MC online sampling: once the simulated instruction count reaches a
  // controller's window, end its sampling phase (builds the table) once.
  void check_sampling() {
    if (!sampling_at || !gpu) return;
    unsigned long long insn = gpu->gpu_tot_sim_insn + gpu->gpu_sim_insn;
    if (insn < sampling_at) return;
    unsigned long long next = 0;
    for (memzip_partition *p : partitions) {
      if (!p) continue;
      memzip::Controller &c = *p->ctrl()->box;
      unsigned long long at = c.sampling_instructions();
      if (!at) continue;
      if (insn >= at) {
        try {
          c.end_sampling();
        } catch (const std::exception &e) {
          memzip_fatal(e.what());
        }
      } else if (!next || at < next) {
        next = at;
      }
    }
    printf("GPGPU-Sim memzip: sampling ended after %llu instructions (codec %s)\n",
           insn, std::string(settings.codec).c_str());
    sampling_at = next;
  }

  void finish_trace() {
    if (!tracer) return;
    try {
      (*tracer)->finish();
    } catch (const std::exception &e) {
      fprintf(stderr, "GPGPU-Sim memzip: ERROR %s\n", e.what());
    }
    tracer.reset();
  }
};

namespace {
void finish_traces_at_exit() {
  for (memzip_gpu_state *s : live_states()) s->finish_trace();
}
}  // namespace

// ---------------------------------------------------------------- options

memzip_options::memzip_options() : state(nullptr) {}

void memzip_options::reg_options(OptionParser *opp) {
  const rust::Vec<memzip::OptionFlag> flags = memzip::option_flags();
  // The parser keeps pointers to the strings: store them all first.
  m_flag_text.clear();
  for (const memzip::OptionFlag &f : flags) {
    m_flag_text.push_back(std::string(f.name));
    m_flag_text.push_back(std::string(f.default_value));
    m_flag_text.push_back(std::string(f.help));
  }
  // Every flag is text here: memzip reads the value (a bool option of the
  // parser would abort on anything but 0/1; memzip names the flag instead).
  m_values.assign(flags.size(), nullptr);
  for (size_t i = 0; i < flags.size(); ++i)
    option_parser_register(opp, m_flag_text[3 * i].c_str(), OPT_CSTR, &m_values[i],
                           m_flag_text[3 * i + 2].c_str(), m_flag_text[3 * i + 1].c_str());
}

namespace {
// Why: a controller that gave two of its blocks one key would size every
// read of one by the other's last write, and no verify would see it. So the
// first 64 MiB of the address space are mapped once at start-up: two blocks
// of one channel with one channel address stop the run.
void check_channel_addrs(const memory_config &config, unsigned block_bytes) {
  std::unordered_map<unsigned long long, unsigned long long> seen;  // (channel, key) -> block
  for (unsigned long long block = 0; block < (64ull << 20); block += block_bytes) {
    addrdec_t tlx;
    config.m_address_mapping.addrdec_tlx(block, &tlx);
    const unsigned long long key = channel_addr(config, block, block_bytes);
    const auto at = seen.emplace(key * 4096 + tlx.chip, block);
    if (!at.second) {
      char why[256];
      snprintf(why, sizeof why,
               "the address mapping gives blocks 0x%llx and 0x%llx of channel %u one channel address 0x%llx",
               at.first->second, block, (unsigned)tlx.chip, key);
      memzip_fatal(why);
    }
  }
}
}  // namespace

void memzip_options::init(const memory_config &config) {
  rust::Vec<rust::String> values;
  for (const char *v : m_values) values.push_back(rust::String(cstr(v)));
  memzip_gpu_state *s = nullptr;
  try {
    s = new memzip_gpu_state(memzip::resolve_options(values));
  } catch (const std::exception &e) {
    memzip_fatal(e.what());
  }
  const unsigned block_bytes = s->settings.block_bytes;
  // Partition-local addresses are block-aligned only if no channel or
  // sub-partition bit lies inside a block.
  for (unsigned b = 1; b < block_bytes; b <<= 1) {
    addrdec_t tlx;
    config.m_address_mapping.addrdec_tlx(b, &tlx);
    if (tlx.chip != 0 || sub_partition_of(tlx) != 0 ||
        config.m_address_mapping.partition_address(b) != b)
      s->use_partition_addr = false;
  }
  if (s->use_partition_addr) check_channel_addrs(config, block_bytes);
  memzip::SimulatorFacts facts;
  facts.simple_dram_model = uses_simple_dram_model(config);
  facts.l2_disabled = config.m_L2_config.disabled();
  facts.l2_line_bytes = config.m_L2_config.get_line_sz();
  facts.l2_atom_bytes = l2_atom_bytes(config);
  facts.dram_atom_bytes = config.dram_atom_size;
  facts.channel_bits_in_block = !s->use_partition_addr;
  try {
    for (const rust::String &note : s->sim->check_simulator(facts))
      printf("GPGPU-Sim memzip: note: %s\n", std::string(note).c_str());
  } catch (const std::exception &e) {
    memzip_fatal(e.what());
  }
  s->block_bytes = block_bytes;
  s->stats_json = std::string(s->settings.stats_json);
  if (!s->stats_json.empty()) {  // fail now, not after the first kernel
    FILE *f = fopen(s->stats_json.c_str(), "w");
    if (!f) {
      std::string why = "-memzip_stats_json " + s->stats_json + ": cannot write: " +
                        std::string(strerror(errno));
      memzip_fatal(why.c_str());
    }
    fclose(f);
  }
  const std::string trace(s->settings.trace);
  if (!trace.empty()) {
    try {
      s->tracer.reset(new rust::Box<memzip::Tracer>(memzip::open_tracer(trace, block_bytes)));
    } catch (const std::exception &e) {
      memzip_fatal(e.what());
    }
    if (live_states().empty()) atexit(finish_traces_at_exit);
    live_states().push_back(s);
  }
  s->partitions.assign(config.m_n_mem, nullptr);
  state = s;
}

void memzip_options::print_stats(FILE *fp) const {
  if (!state) return;
  rust::Box<memzip::Stats> total = memzip::new_stats();
  std::string controllers;
  bool first = true;
  for (memzip_partition *p : state->partitions) {
    if (!p) continue;
    rust::Box<memzip::Stats> st = p->ctrl()->box->stats();
    unsigned long long dram[6];
    if (p->dram_counters(dram)) st->set_dram_counters(dram[0], dram[1], dram[2], dram[3], dram[4], dram[5]);
    total->merge(*st);
    std::string prefix = "memzip_mc[" + std::to_string(p->id()) + "]";
    fputs(std::string(st->to_text(prefix)).c_str(), fp);
    if (!first) controllers += ",\n";
    controllers += std::string(st->to_json());
    first = false;
  }
  if (state->gpu)
    total->set_simulated_time(sim_cycle(state->gpu), state->gpu->get_config().get_core_freq());
  const std::string note(state->sim->approximable_note());
  if (!note.empty()) printf("GPGPU-Sim memzip: note: %s\n", note.c_str());
  fputs(std::string(total->to_text("memzip_total")).c_str(), fp);
  const std::string json = "{\"total\": " + std::string(total->to_json()) +
                           ",\n\"controllers\": [\n" + controllers + "\n]}\n";
  if (!state->stats_json.empty()) {
    FILE *f = fopen(state->stats_json.c_str(), "w");
    if (!f || fputs(json.c_str(), f) < 0 || fclose(f) != 0) {
      std::string why = "-memzip_stats_json " + state->stats_json + ": cannot write: " +
                        std::string(strerror(errno));
      memzip_fatal(why.c_str());
    }
  }
}

// ---------------------------------------------------------------- partition

memzip_partition::memzip_partition(unsigned id, const memory_config *config, gpgpu_sim *gpu)
    : m_id(id),
      m_config(config),
      m_gpu(gpu),
      m_state(config->m_memzip.state),
      m_ctrl(nullptr),
      m_dram(nullptr) {
  if (!m_state) memzip_fatal("memzip_options::init was not called before the partitions");
  try {
    m_ctrl = new controller(m_state->sim->new_controller());
  } catch (const std::exception &e) {
    memzip_fatal(e.what());
  }
  m_block_bytes = m_state->block_bytes;
  m_core_cycles_per_latency_cycle =
      (double)gpu->get_config().get_core_freq() / (m_state->settings.latency_mhz * 1e6);
  m_state->gpu = gpu;
  if (id >= m_state->partitions.size()) m_state->partitions.resize(id + 1, nullptr);
  m_state->partitions[id] = this;
  unsigned long long at = m_ctrl->box->sampling_instructions();
  if (at && (!m_state->sampling_at || at < m_state->sampling_at)) m_state->sampling_at = at;
}

memzip_partition::~memzip_partition() {
  if (m_state && m_id < m_state->partitions.size() && m_state->partitions[m_id] == this)
    m_state->partitions[m_id] = nullptr;
  delete m_ctrl;
}

unsigned long long memzip_partition::now() const {
  return sim_cycle(m_gpu);
}

unsigned memzip_partition::core_cycles(unsigned latency_cycles) const {
  if (latency_cycles == 0) return 0;  // none and raw blocks: exactly nothing added
  return (unsigned)std::ceil(latency_cycles * m_core_cycles_per_latency_cycle);
}

unsigned long long memzip_partition::local_addr(unsigned long long block_addr) const {
  return m_state->use_partition_addr ? channel_addr(*m_config, block_addr, m_block_bytes) : block_addr;
}

void memzip_partition::read_block(unsigned long long block_addr, unsigned char *buf) const {
  m_gpu->get_global_memory()->read(block_addr, m_block_bytes, buf);
}

unsigned memzip_partition::on_issue(mem_fetch *mf) {
  const unsigned long long addr = mf->get_addr();
  const unsigned size = mf->get_data_size();
  const unsigned long long block_addr = addr / m_block_bytes * m_block_bytes;
  memzip::Controller &c = *m_ctrl->box;
  c.count_request(access_type_name(mf->get_access_type()), size);
  // A request of one block's size moves the block holding its address: v3.2.1
  // sends an L2 line fill with the address the L1 asked for, not the line's
  // (rodinia bfs tiny: 609 of its 1,387 128-byte reads). Any smaller request is a
  // request for part of the block it starts in; one that would spill into the
  // next block is charged there at its full size, as gpgpu-sim sizes it.
  m_state->check_sampling();
  const bool whole = size == m_block_bytes;
  std::vector<unsigned char> buf;
  // The trace holds whole blocks moved whole (reads, write-backs, copies), as
  // its readers count them; a sector read would repeat its block per sector.
  const bool tracing = m_state->tracer && whole;
  memzip::Access a;
  const bool sampling = mf->is_write() && c.is_sampling();
  try {
    if (mf->is_write()) {
      buf.resize(m_block_bytes);
      read_block(block_addr, buf.data());
      std::vector<unsigned char> approximated(m_block_bytes);
      rust::Slice<std::uint8_t> approx_out(approximated.data(), approximated.size());
      a = whole ? c.write_block_of(local_addr(block_addr), block_addr, bytes(buf.data(), buf.size()),
                                   *m_state->sim, approx_out)
                : c.write_part_of(local_addr(block_addr), block_addr, size, units_written_whole(mf, block_addr),
                                  bytes(buf.data(), buf.size()), *m_state->sim, approx_out);
      if (a.approximated) write_back_approximation(block_addr, approximated.data());
    } else {
      const bool fetch_in_flight = m_line_fetches.count(block_addr) != 0;
      a = whole ? c.read_block(local_addr(block_addr)) : c.read_part(local_addr(block_addr), size, fetch_in_flight);
      if (tracing) {
        buf.resize(m_block_bytes);
        read_block(block_addr, buf.data());
      }
    }
  } catch (const std::exception &e) {
    memzip_fatal(e.what());
  }
  if (sampling) note_sampling_end();
  if (tracing) m_state->record(now(), mf->is_write() ? 1 : 0, m_id, block_addr, buf.data());
  if (a.merged) {
    m_matched[mf] = block_addr;
  } else if (a.fills_line) {
    m_fills_line[mf] = block_addr;
    m_line_fetches[block_addr].leader = mf;
  }
  pending p;
  p.nbytes = a.dram_bytes + a.metadata_dram_bytes + a.rmw_read_bytes;
  p.decompress_cycles = mf->is_write() ? 0 : core_cycles(a.latency_cycles);
  p.in_dram = false;
  m_pending[mf] = p;
  return core_cycles(mf->is_write() ? a.latency_cycles : a.metadata_cycles);
}

// The block's MAG units a write covers whole: every byte of the unit in the
// request's byte mask (line-relative in both simulator generations; a sectored
// L2's write-back carries its dirty bytes), or, when the mask is empty, in the
// request's address range.
unsigned long long memzip_partition::units_written_whole(const mem_fetch *mf,
                                                         unsigned long long block_addr) const {
  const unsigned mag = m_state->settings.mag_bytes;
  const mem_access_byte_mask_t mask = mf->get_access_byte_mask();
  const unsigned long long from = mf->get_addr() - block_addr, to = from + mf->get_data_size();
  unsigned long long units = 0;
  for (unsigned u = 0; u * mag < m_block_bytes && u < 64; ++u) {
    bool whole = true;
    for (unsigned b = u * mag; b < (u + 1) * mag && whole; ++b)
      whole = mask.any() ? (b < mask.size() && mask.test(b)) : (b >= from && b < to);
    if (whole) units |= 1ull << u;
  }
  return units;
}

unsigned memzip_partition::transfer_bytes(mem_fetch *mf, unsigned nbytes) {
  auto it = m_pending.find(mf);
  unsigned n = nbytes;
  if (it != m_pending.end()) {
    n = it->second.nbytes;
    // Reads that need decompression stay until their reply is taken back.
    if (it->second.decompress_cycles == 0)
      m_pending.erase(it);
    else
      it->second.in_dram = true;
  }
  pushed p;
  p.mf = mf;
  p.nbytes = n;
  m_pushed.push_back(p);
  if (m_pushed.size() > 4) m_pushed.pop_front();  // mrqq holds at most 2
  return n;
}

mem_fetch *memzip_partition::return_queue_top(dram_t *dram) {
  m_dram = dram;
  // Intake: a reply that needs decompression, or any reply while others are
  // held (one reply leaves per cycle), enters the delay queue.
  mem_fetch *mf = dram->return_queue_top();
  if (mf) {
    unsigned delay = 0;
    auto it = m_pending.find(mf);
    if (it != m_pending.end()) {
      delay = it->second.decompress_cycles;
      m_pending.erase(it);
    }
    if (delay > 0 || !m_held.empty()) {
      held h;
      h.mf = mf;
      h.ready_cycle = now() + delay;
      // In ready-cycle order: a raw reply does not wait behind replies still
      // in the decompressor (a block stored uncompressed saves the
      // decompression latency, the MAG-aware paper Sec. IV), nor a short decompression
      // (adaptive's BDI) behind a long one.
      memzip_latency_queue_insert(m_held, h);
      dram->return_queue_pop();
    }
  }
  if (m_held.empty()) return dram->return_queue_top();
  return m_held.front().ready_cycle <= now() ? m_held.front().mf : nullptr;
}

// A block window (-memzip_e2mc_sampling online:blocks=N) ends inside the
// controller: say when, as the instruction window does.
void memzip_partition::note_sampling_end() const {
  if (m_ctrl->box->is_sampling()) return;
  printf("GPGPU-Sim memzip: controller %u ended sampling at cycle %llu (codec %s)\n", m_id, now(),
         std::string(m_ctrl->box->codec_name()).c_str());
}

// dram_t issues one column command per dram_atom_size bytes of a request,
// the last one possibly partial: it adds the atom to txbytes at each read or
// write command (counted in n_rd/n_wr, on dev also n_rd_L2_A/n_wr_WB) until
// txbytes reaches nbytes (dram.cc, issue_col_command).
unsigned long long memzip_partition::commands_for(unsigned nbytes) const {
  const unsigned atom = m_config->dram_atom_size;
  return (nbytes + atom - 1) / atom;
}

// Why: memzip charges a request's bursts when it leaves the L2 (on_issue),
// the DRAM counts a column command when it issues one, and a kernel ends
// (the counters are read) without waiting for the requests between the two.
// Counting those requests' remaining commands makes the account exact:
// under none, read + write commands + unissued bursts = memzip's bursts.
unsigned long long memzip_partition::unissued_bursts() const {
  unsigned long long n = 0;
  // The DRAM latency queue: charged, not yet pushed into the DRAM.
  for (const auto &e : m_pending)
    if (!e.second.in_dram) n += commands_for(e.second.nbytes);
  return n + unissued_in_dram();
}

unsigned long long memzip_partition::unissued_in_dram() const {
  const dram_t &d = *m_dram;
  auto owed = [this](const dram_req_t *r) {
    return r->txbytes < r->nbytes ? commands_for(r->nbytes - r->txbytes) : 0ull;
  };
  unsigned long long n = 0;
  // In service in a bank, possibly partly issued.
  for (unsigned b = 0; b < m_config->nbk; ++b)
    if (d.bk[b]->mrq) n += owed(d.bk[b]->mrq);
  // Waiting in the FR-FCFS scheduler's per-bank queues.
  if (d.m_frfcfs_scheduler) {
    const frfcfs_scheduler &s = *d.m_frfcfs_scheduler;
    for (unsigned b = 0; b < m_config->nbk; ++b) {
      for (const dram_req_t *r : s.m_queue[b]) n += owed(r);
#ifndef MEMZIP_GPGPUSIM_V3
      if (m_config->seperate_write_queue_enabled)
        for (const dram_req_t *r : s.m_write_queue[b]) n += owed(r);
#endif
    }
  }
  // Waiting in dram_t's request queue (a FIFO): the newest requests pushed.
  const size_t queued = d.mrqq->get_length();
  if (queued > m_pushed.size() || (queued && d.mrqq->top()->data != m_pushed[m_pushed.size() - queued].mf))
    memzip_fatal("the DRAM's request queue does not hold the requests last handed to it");
  for (size_t i = m_pushed.size() - queued; i < m_pushed.size(); ++i) n += commands_for(m_pushed[i].nbytes);
  return n;
}

bool memzip_partition::dram_counters(unsigned long long counters[6]) const {
  if (!m_dram) return false;
  counters[0] = m_dram->n_cmd;
  counters[1] = m_dram->bwutil;
  counters[2] = m_dram->n_act;
#ifdef MEMZIP_GPGPUSIM_V3
  counters[3] = m_dram->n_rd;
  counters[4] = m_dram->n_wr;
#else
  // dev splits reads for write-allocate fills and write-backs into own counters.
  counters[3] = m_dram->n_rd + m_dram->n_rd_L2_A;
  counters[4] = m_dram->n_wr + m_dram->n_wr_WB;
#endif
  counters[5] = unissued_bursts();
  return true;
}

void memzip_partition::return_queue_pop(dram_t *dram) {
  const mem_fetch *leaving = nullptr;  // a key only: the simulator may have deleted it
  if (m_held.empty()) {
    leaving = dram->return_queue_top();
    dram->return_queue_pop();
  } else if (m_held.front().ready_cycle <= now()) {
    leaving = m_held.front().mf;
    m_held.pop_front();
  }
  if (leaving) release_riders(leaving);
}

// Why: a warp reading a whole line misses on its four sectors at once, so
// under -memzip_partial_reads fill the controller matches the later sector
// reads of a compressed line to the whole fetch already under way (memzip
// decides, read_part); they skip the DRAM and leave with that fetch's
// decompressed block, one reply per cycle as every reply does.
bool memzip_partition::rides_along(mem_fetch *mf) {
  const auto it = m_matched.find(mf);
  if (it == m_matched.end()) return false;
  const unsigned long long block_addr = it->second;
  m_matched.erase(it);
  m_pending.erase(mf);  // 0 bytes: no DRAM command owed
  const auto fetch = m_line_fetches.find(block_addr);
  if (fetch != m_line_fetches.end())
    fetch->second.riders.push_back(mf);
  else
    release_rider(mf);  // the fetch's reply has left already
  return true;
}

void memzip_partition::release_riders(const mem_fetch *leaving) {
  const auto leader = m_fills_line.find(leaving);
  if (leader == m_fills_line.end()) return;
  const auto fetch = m_line_fetches.find(leader->second);
  if (fetch == m_line_fetches.end() || fetch->second.leader != leaving) return;
  for (mem_fetch *rider : fetch->second.riders) release_rider(rider);
  m_line_fetches.erase(fetch);
}

// The rider's reply, as dram_t makes a read's: a reply, in the return path.
void memzip_partition::release_rider(mem_fetch *rider) {
  rider->set_status(IN_PARTITION_MC_RETURNQ, now());
  rider->set_reply();
  held h;
  h.mf = rider;
  h.ready_cycle = now();
  memzip_latency_queue_insert(m_held, h);
}

// Why: the L2 of gpgpu-sim dev fills only the sector a reply was asked for,
// but a compressed block arrives whole and decompressed; an L2 that keeps it
// (-memzip_partial_reads fill) marks the line's other sectors valid, except
// those it holds already (valid, dirty) or awaits (reserved: their own reply
// fills them). The functional memory holds the data; the L2 only its state.
void memzip_partition::on_l2_fill(mem_fetch *mf, l2_cache *l2) {
  const auto it = m_fills_line.find(mf);
  if (it == m_fills_line.end()) return;
  const unsigned long long block_addr = it->second;
  m_fills_line.erase(it);
#ifdef MEMZIP_GPGPUSIM_V3
  (void)l2;  // v3.2.1's L2 has no sectors: check_simulator refuses fill there
#else
  if (!l2) return;
  tag_array &tags = *l2->memzip_tag_array();
  unsigned filled = 0;
  for (unsigned s = 0; s < SECTOR_CHUNCK_SIZE; ++s) {
    mem_access_sector_mask_t sector;
    sector.set(s);
    unsigned line_index;
    if (tags.probe(block_addr, line_index, sector, false, true) != SECTOR_MISS) continue;
    cache_block_t &line = *tags.get_block(line_index);
    if (line.get_status(sector) != INVALID) continue;  // dirty and not readable
    line.set_status(VALID, sector);
    ++filled;
  }
  if (filled) m_ctrl->box->note_filled_sectors(filled);
#endif
}

// A block memzip stored approximated reads back as the approximation: put it
// into the functional memory, which every later load and copy reads.
void memzip_partition::write_back_approximation(unsigned long long block_addr,
                                                const unsigned char *approximated) const {
  m_gpu->get_global_memory()->write(block_addr, m_block_bytes, approximated, NULL, NULL);
}

void memzip_partition::copy_block(unsigned long long block_addr, const unsigned char *data) {
  const bool sampling = m_ctrl->box->is_sampling();
  std::vector<unsigned char> approximated(m_block_bytes);
  try {
    memzip::Access a = m_ctrl->box->copy_block_of(local_addr(block_addr), block_addr, bytes(data, m_block_bytes),
                                                  *m_state->sim,
                                                  rust::Slice<std::uint8_t>(approximated.data(), approximated.size()));
    if (a.approximated) write_back_approximation(block_addr, approximated.data());
  } catch (const std::exception &e) {
    memzip_fatal(e.what());
  }
  if (sampling) note_sampling_end();
  if (m_state->tracer) m_state->record(now(), 2, m_id, block_addr, data);
}

// ---------------------------------------------------------------- memcpy

void memzip_memcpy_to_gpu(gpgpu_sim *gpu, size_t dst, size_t count) {
  const memory_config *config = gpu->getMemoryConfig();
  memzip_gpu_state *s = config->m_memzip.state;
  if (!s || count == 0) return;
  s->check_sampling();
  const unsigned long long bb = s->block_bytes;
  std::vector<unsigned char> buf(bb);
  for (unsigned long long block = dst / bb * bb; block < dst + count; block += bb) {
    addrdec_t tlx;
    config->m_address_mapping.addrdec_tlx(block, &tlx);
    if (tlx.chip >= s->partitions.size() || !s->partitions[tlx.chip]) continue;
    gpu->get_global_memory()->read(block, bb, buf.data());
    s->partitions[tlx.chip]->copy_block(block, buf.data());
  }
}

// ---------------------------------------------------------------- allocations

void memzip_gpu_malloc(gpgpu_sim *gpu, unsigned long long start, size_t size) {
  if (!gpu) return;
  memzip_gpu_state *s = gpu->getMemoryConfig()->m_memzip.state;
  if (!s) return;
  const std::string line(s->sim->on_allocation(start, size));
  if (!line.empty()) printf("GPGPU-Sim memzip: %s\n", line.c_str());
}
