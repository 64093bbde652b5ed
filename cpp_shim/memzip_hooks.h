// memzip_hooks: the only C++ that knows both gpgpu-sim and memzip.
//
// gpgpu-sim's memory partitions call these hooks (the calls are added by
// gpgpu-sim-patch/<version>/0002-memzip-hooks.patch); every decision about
// compression, metadata, bursts and latencies is made in Rust
// (rust/memzip/src/mc/controller.rs) behind the cxx bridge
// (rust/memzip-ffi). This file only forwards events and applies the numbers.
//
// This header is included by gpu-sim.h, so it stays light: it declares no
// Rust type (those live in memzip_hooks.cc) and only forward-declares the
// simulator classes it names.
//
// Where the hooks sit (see the patch):
//   memory_config::reg_options   memzip_options::reg_options   (-memzip_* flags)
//   memory_config::init          memzip_options::init          (resolve once, or stop)
//   memory_partition_unit ctor   new memzip_partition          (one controller each)
//   dram_cycle, L2->DRAM issue   memzip_partition::on_issue    (+cycles on ready_cycle)
//                                memzip_latency_queue_insert   (in ready-cycle order)
//   dram_t::push                 memzip_partition::transfer_bytes (dram_req_t::nbytes)
//   dram_cycle, DRAM->L2 return  memzip_partition::return_queue_top/_pop
//   cache_cycle, reply leaves    memzip_partition::on_l2_fill (dev: the L2
//   the dram->L2 queue           fills it, or it passes the L2)
//   gpgpu_t::memcpy_to_gpu       memzip_memcpy_to_gpu          (host->device copies)
//   gpgpu_t::gpu_malloc(array)   memzip_gpu_malloc             (device allocations)
//   gpgpu_sim::print_stats       memzip_options::print_stats   (each kernel end; also
//                                the simulated time for the energy statistics)
//
// Timing units: every latency memzip returns is added to the clock the
// partition's DRAM latency queue runs on (gpu_sim_cycle + gpu_tot_sim_cycle,
// the core clock: the unit of -dram_latency).
#ifndef MEMZIP_HOOKS_H
#define MEMZIP_HOOKS_H

#include <cstddef>
#include <cstdio>
#include <deque>
#include <iterator>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

class OptionParser;
class mem_fetch;
class l2_cache;
class memory_config;
class gpgpu_sim;
class dram_t;
struct memzip_gpu_state;  // resolved flags, controllers' registry, tracer (.cc)

// The -memzip_* options: a member of memory_config (m_memzip). Which flags
// exist, their defaults, help and meaning are memzip's (Rust); this only
// registers them with the simulator's parser and hands their text back.
struct memzip_options {
  memzip_options();
  // Registers every -memzip_* flag memzip::option_flags() lists, as text.
  void reg_options(OptionParser *opp);
  // Called at the end of memory_config::init: memzip resolves the flags once
  // and checks them against the simulator's configuration; a bad value prints
  // one line "GPGPU-Sim memzip: ERROR ..." and exits 1.
  void init(const memory_config &config);
  // Per-controller and total statistics (cumulative since the start), and
  // the -memzip_stats_json file; called at every kernel end.
  void print_stats(FILE *fp) const;

  // Shared by all partitions of this GPU; created by init().
  memzip_gpu_state *state;

 private:
  // Each flag's value as gpgpu-sim's option parser fills it, in
  // memzip::option_flags() order.
  std::vector<char *> m_values;
  // The parser keeps pointers to the names, defaults and help: they live here.
  std::vector<std::string> m_flag_text;  // name, default, help per flag
};

// One memory controller's compressor: a member pointer of memory_partition_unit.
class memzip_partition {
 public:
  memzip_partition(unsigned id, const memory_config *config, gpgpu_sim *gpu);
  ~memzip_partition();

  // A request moves from the L2->DRAM queue into the DRAM latency queue.
  // Returns cycles to add to its ready_cycle: compression latency (writes),
  // metadata-cache lookup (reads). Remembers its DRAM transfer size.
  unsigned on_issue(mem_fetch *mf);
  // dram_t::push: the request's DRAM transfer size (bytes), given the
  // size gpgpu-sim would use; unchanged for requests memzip did not size.
  unsigned transfer_bytes(mem_fetch *mf, unsigned nbytes);
  // Replace dram_t::return_queue_top/pop in dram_cycle: replies that need
  // decompression wait in a delay queue first; they leave it in ready-cycle
  // order, raw replies passing those still being decompressed.
  mem_fetch *return_queue_top(dram_t *dram);
  void return_queue_pop(dram_t *dram);
  // A DRAM reply leaves the DRAM->L2 queue: into the L2 (l2, just before
  // the L2 fills it) or past it (l2 null). A sector read that fetched a
  // compressed block whole under -memzip_partial_reads fill fills every
  // sector of the line the L2 does not hold yet (gpgpu-sim dev only).
  void on_l2_fill(mem_fetch *mf, l2_cache *l2);
  // dram_cycle, a request leaves the DRAM latency queue: true when memzip
  // matched it to a whole fetch of its line in flight (-memzip_partial_reads
  // fill); it then goes to no DRAM, and its reply leaves after that fetch's.
  bool rides_along(mem_fetch *mf);

  // Host-to-device copy of the block at global address block_addr.
  void copy_block(unsigned long long block_addr, const unsigned char *data);
  unsigned id() const { return m_id; }
  // The simulator's own counters of this channel's DRAM (cumulative): DRAM
  // cycles, data-bus busy cycles, activations, read and write column
  // commands, and the column commands still owed: unissued_bursts(). False
  // before the channel's first DRAM cycle. (dram_t and frfcfs_scheduler make
  // memzip_partition a friend in the hooks patch.)
  bool dram_counters(unsigned long long counters[6]) const;

  struct controller;  // rust::Box<memzip::Controller> (.cc)
  controller *ctrl() const { return m_ctrl; }

 private:
  unsigned long long now() const;
  // memzip latencies (memory-controller cycles) -> core cycles.
  unsigned core_cycles(unsigned latency_cycles) const;
  unsigned long long local_addr(unsigned long long block_addr) const;
  unsigned long long units_written_whole(const mem_fetch *mf, unsigned long long block_addr) const;
  void note_sampling_end() const;
  void read_block(unsigned long long block_addr, unsigned char *buf) const;
  void write_back_approximation(unsigned long long block_addr, const unsigned char *approximated) const;

  // The column commands this channel's DRAM will still issue for requests
  // memzip has already charged: those in the DRAM latency queue, the DRAM's
  // request queue, the FR-FCFS scheduler's queues and the banks.
  unsigned long long unissued_bursts() const;
  unsigned long long unissued_in_dram() const;
  unsigned long long commands_for(unsigned nbytes) const;

  struct pending {
    unsigned nbytes;             // DRAM transfer size (data + metadata)
    unsigned decompress_cycles;  // return-path delay (reads)
    bool in_dram;                // transfer_bytes has handed it to the DRAM
  };
  struct pushed {
    const mem_fetch *mf;
    unsigned nbytes;
  };
  struct held {
    mem_fetch *mf;
    unsigned long long ready_cycle;
  };

  unsigned m_id;
  const memory_config *m_config;
  gpgpu_sim *m_gpu;
  memzip_gpu_state *m_state;
  controller *m_ctrl;
  unsigned m_block_bytes;
  double m_core_cycles_per_latency_cycle;
  std::unordered_map<mem_fetch *, pending> m_pending;
  // -memzip_partial_reads fill: sector reads whose reply fills the whole
  // line, and their block address (until the L2 fills it);
  std::unordered_map<const mem_fetch *, unsigned long long> m_fills_line;
  // per block, that read while its reply has not left for the L2, and the
  // sector reads matched to it that wait for it (riders);
  struct line_fetch {
    const mem_fetch *leader;
    std::vector<mem_fetch *> riders;
  };
  std::unordered_map<unsigned long long, line_fetch> m_line_fetches;
  // matched sector reads on their way through the DRAM latency queue.
  std::unordered_map<const mem_fetch *, unsigned long long> m_matched;
  void release_riders(const mem_fetch *leaving);
  void release_rider(mem_fetch *rider);
  std::deque<held> m_held;  // replies in the decompressor, in ready-cycle order
  // The last requests handed to the DRAM, newest last: dram_t's request queue
  // (mrqq, a FIFO of at most 2 in both generations) holds the newest of them,
  // as many as its length. Kept here because the queue's elements are
  // private to fifo_pipeline, whose header every simulator file includes.
  std::deque<pushed> m_pushed;
  const dram_t *m_dram;     // this partition's DRAM, seen on its first cycle
};

// dram_cycle, in place of the latency queue's push_back / push: puts a request
// after every request that is ready no later than it, before the rest.
// Why: gpgpu-sim pops that queue only from its front, once the front is
// ready, so appending a write that waits in the compressor would hold up
// every request queued behind it. In the papers' controller a store does
// not stall anyone (the E2MC paper Sec. III-B3: "stores can be done without
// stalling"), and a pipelined compressor works on several blocks at once.
// Requests that add no cycles (none, raw reads) arrive in ready-cycle order
// and go to the back, exactly as before: the none runs stay cycle-identical.
template <class Container, class Request>
void memzip_latency_queue_insert(Container &queue, const Request &request) {
  auto pos = queue.end();
  while (pos != queue.begin() && std::prev(pos)->ready_cycle > request.ready_cycle) --pos;
  queue.insert(pos, request);
}

// v3.2.1 keeps the latency queue in a std::queue, whose container is protected.
template <class Request>
void memzip_latency_queue_insert(std::queue<Request> &queue, const Request &request) {
  struct container_of : std::queue<Request> {
    static typename std::queue<Request>::container_type &get(std::queue<Request> &q) {
      return q.*(&container_of::c);
    }
  };
  memzip_latency_queue_insert(container_of::get(queue), request);
}

// gpgpu_t::memcpy_to_gpu, after the functional copy: compress every block
// overlapped by [dst, dst + count) into its controller (initialises metadata).
void memzip_memcpy_to_gpu(gpgpu_sim *gpu, size_t dst, size_t count);

// gpgpu_t::gpu_malloc / gpu_mallocarray: the program's next device
// allocation, `size` bytes at `start` (memzip numbers them for
// -memzip_approx_allocs).
void memzip_gpu_malloc(gpgpu_sim *gpu, unsigned long long start, size_t size);

#endif  // MEMZIP_HOOKS_H
