// Drives memzip's C++ objects (Simulation, Controller, Stats, Tracer)
// through the cxx bridge as the gpgpu-sim hooks do, without the simulator:
// the flags registered and resolved once, a controller per partition, the
// checks against the simulator's configuration; and the hooks' DRAM latency
// queue insertion (memzip_hooks.h).
// Prints one line per check and "N passed, N failed" at the end.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <list>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "rust/cxx.h"
#include "memzip-ffi/src/lib.rs.h"
#include "memzip_hooks.h"

static int passed = 0, failed = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            ++passed;                                                        \
        } else {                                                             \
            ++failed;                                                        \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
        }                                                                    \
    } while (0)

template <typename F>
static std::string error_of(F f) {
    try {
        f();
    } catch (const rust::Error& e) {
        return e.what();
    }
    return "";
}

static rust::Slice<const uint8_t> slice(const std::vector<uint8_t>& v) {
    return rust::Slice<const uint8_t>(v.data(), v.size());
}

static std::vector<uint8_t> small_ints() {  // 32 little-endian ints near 1000
    std::vector<uint8_t> block(128);
    for (uint32_t i = 0; i < 32; ++i) {
        uint32_t v = 1000 + i;
        std::memcpy(&block[i * 4], &v, 4);
    }
    return block;
}

// The flags' values as the simulator's parser hands them back: every
// default, then `changes` (flag name -> text).
static rust::Vec<rust::String> flag_values(const std::vector<std::pair<std::string, std::string>>& changes) {
    rust::Vec<rust::String> values;
    for (const memzip::OptionFlag& f : memzip::option_flags()) {
        std::string value(f.default_value);
        for (const auto& change : changes)
            if (change.first == std::string(f.name)) value = change.second;
        values.push_back(rust::String(value));
    }
    return values;
}

static memzip::SimulatorFacts gtx580() {
    memzip::SimulatorFacts facts;
    facts.simple_dram_model = false;
    facts.l2_disabled = false;
    facts.l2_line_bytes = 128;
    facts.l2_atom_bytes = 128;
    facts.dram_atom_bytes = 32;
    facts.channel_bits_in_block = false;
    return facts;
}

static void flags_are_registered_and_resolved_once() {
    rust::Vec<memzip::OptionFlag> flags = memzip::option_flags();
    CHECK(std::string(flags[0].name) == "-memzip_codec");
    CHECK(std::string(flags[0].default_value) == "none");
    CHECK(std::string(flags[0].help).find("mag_bdi") != std::string::npos);
    auto sim = memzip::resolve_options(flag_values({}));
    memzip::Settings settings = sim->settings();
    CHECK(!settings.compresses);
    CHECK(settings.block_bytes == 128 && settings.mag_bytes == 32 && settings.latency_mhz == 1002);
    CHECK(std::string(settings.trace).empty() && std::string(settings.stats_json).empty());
    auto compressing = memzip::resolve_options(flag_values({{"-memzip_codec", "bdi"}, {"-memzip_trace", "t.zst"}}));
    CHECK(compressing->settings().compresses);
    CHECK(std::string(compressing->settings().trace) == "t.zst");
}

static void controller_sizes_dram_traffic() {
    auto sim = memzip::resolve_options(flag_values({{"-memzip_codec", "mag_bdi"}, {"-memzip_verify", "1"}}));
    auto controller = sim->new_controller();
    CHECK(std::string(controller->codec_name()) == "mag_bdi");
    CHECK(controller->block_bytes() == 128);

    memzip::Access write = controller->write_block(0x4000, slice(small_ints()));
    CHECK(write.burst_count == 1);  // 6-bit deltas: exactly one 32-byte burst
    CHECK(write.dram_bytes == 32);
    CHECK(write.compressed_bits == 256);
    CHECK(write.latency_cycles == 1);
    CHECK(write.metadata_miss);
    CHECK(write.metadata_dram_bytes == 32);

    memzip::Access read = controller->read_block(0x4000);
    CHECK(read.burst_count == 1);
    CHECK(read.latency_cycles == 1);
    CHECK(!read.metadata_miss);  // the write's miss filled the line

    memzip::Access never_written = controller->read_block(0x900000);
    CHECK(never_written.burst_count == 4);
    CHECK(never_written.latency_cycles == 0);

    auto total = memzip::new_stats();
    total->merge(*controller->stats());
    total->merge(*sim->new_controller()->stats());  // a second partition, untouched
    std::string text(total->to_text("memzip_total"));
    CHECK(text.find("memzip_total_blocks_written = 1\n") != std::string::npos);
    CHECK(text.find("memzip_total_verify_checked = 1\n") != std::string::npos);  // decompressed and compared
    CHECK(text.find("memzip_total_verify_failures = 0\n") != std::string::npos);
    std::string json(total->to_json());
    CHECK(json.find("\"codec\": \"mag_bdi\"") != std::string::npos);
    CHECK(json.find("\"controllers\": 2") != std::string::npos);
}

// Floats just above 1.0f, 256 distinct low halves: after sampling them
// E2MC16 stores a block in ~40 bytes, a few above one 32-byte MAG.
static std::vector<uint8_t> floats(uint32_t seed) {
    std::vector<uint8_t> block(128);
    for (uint32_t i = 0; i < 32; ++i) {
        uint32_t v = 0x3f800000u | ((seed * 40503u + i * 2654435761u) >> 24);
        std::memcpy(&block[i * 4], &v, 4);
    }
    return block;
}

static void approximable_allocations_reach_slc() {
    auto sim = memzip::resolve_options(flag_values({{"-memzip_codec", "slc"},
                                                    {"-memzip_e2mc_sampling", "online:blocks=32"},
                                                    {"-memzip_approx_allocs", "2:out"},
                                                    {"-memzip_verify", "1"}}));
    CHECK(std::string(sim->on_allocation(0x10000, 4096)) == "allocation 1: 4096 bytes at 0x10000");
    CHECK(std::string(sim->approximable_note()).find("not made (yet): 2 (1 made") != std::string::npos);
    CHECK(std::string(sim->on_allocation(0x11000, 4096)) == "allocation 2: 4096 bytes at 0x11000, approximable: out");
    CHECK(std::string(sim->approximable_note()).empty());
    auto controller = sim->new_controller();
    std::vector<uint8_t> approximated(128);
    rust::Slice<uint8_t> out(approximated.data(), approximated.size());
    for (uint32_t i = 0; i < 32; ++i) controller->write_block(0x20000 + 128 * i, slice(floats(i)));
    CHECK(!controller->is_sampling());
    int lossy = 0, exact_outside = 0;
    for (uint32_t i = 0; i < 32; ++i) {
        std::vector<uint8_t> block = floats(i);  // values the table learnt
        memzip::Access a = controller->write_block_of(0x11000 + 128 * i, 0x11000 + 128 * i, slice(block), *sim, out);
        if (a.approximated) {
            ++lossy;
            CHECK(a.dram_bytes < 96 && approximated != block);
        } else {
            CHECK(approximated == block);
        }
        memzip::Access b = controller->write_block_of(0x10000 + 128 * i, 0x10000 + 128 * i, slice(block), *sim, out);
        exact_outside += !b.approximated;
    }
    CHECK(lossy > 0);
    CHECK(exact_outside == 32);
    std::string text(controller->stats()->to_text("t"));
    CHECK(text.find("t_approximated_blocks = " + std::to_string(lossy) + "\n") != std::string::npos);
    CHECK(text.find("t_verify_failures = 0\n") != std::string::npos);
    // Without a list, allocations are counted but nothing is printed.
    auto plain = memzip::resolve_options(flag_values({{"-memzip_codec", "slc"}}));
    CHECK(std::string(plain->on_allocation(0x10000, 64)).empty());
    std::string err = error_of([&] { memzip::resolve_options(flag_values({{"-memzip_approx_allocs", "0:x"}})); });
    CHECK(err.find("-memzip_approx_allocs: invalid approximable allocation '0:x'") == 0);
}

static void none_changes_nothing() {
    auto sim = memzip::resolve_options(flag_values({}));
    CHECK(sim->check_simulator(gtx580()).empty());
    auto controller = sim->new_controller();
    memzip::Access write = controller->write_block(0, slice(std::vector<uint8_t>(128, 0)));
    CHECK(write.dram_bytes == 128);
    CHECK(write.latency_cycles == 0);
    CHECK(write.metadata_dram_bytes == 0);
    memzip::Access read = controller->read_block(0);
    CHECK(read.dram_bytes == 128 && read.latency_cycles == 0 && read.metadata_cycles == 0);
}

static void errors_arrive_as_exceptions() {
    std::string err = error_of([] { memzip::resolve_options(flag_values({{"-memzip_codec", "zip"}})); });
    CHECK(err.find("-memzip_codec: invalid codec 'zip'") == 0);
    err = error_of([] { memzip::resolve_options(flag_values({{"-memzip_codec", "bdi"}, {"-memzip_mag_bytes", "48"}})); });
    CHECK(err.find("-memzip_mag_bytes") == 0);
    err = error_of([] { memzip::resolve_options(flag_values({{"-memzip_verify", "yes"}})); });
    CHECK(err == "-memzip_verify: invalid value 'yes': expected 0 or 1");
    err = error_of([] { memzip::resolve_options(rust::Vec<rust::String>()); });
    CHECK(err.find("values given") != std::string::npos);

    auto sim = memzip::resolve_options(flag_values({{"-memzip_codec", "bdi"}}));
    memzip::SimulatorFacts sectored = gtx580();
    sectored.l2_line_bytes = 64;
    err = error_of([&] { sim->check_simulator(sectored); });
    CHECK(err.find("-memzip_block_bytes 128: the L2 moves 64-byte lines") == 0);
    auto controller = sim->new_controller();
    err = error_of([&] { controller->write_block(0, slice(std::vector<uint8_t>(64, 0))); });
    CHECK(err.find("64 bytes") != std::string::npos);
}

static void tracer_rejects_bad_input() {
    std::string path = "/tmp/memzip_bridge_test_trace.zst";
    auto tracer = memzip::open_tracer(path, 128);
    tracer->record(10, 1, 0, 0x80, slice(std::vector<uint8_t>(128, 1)));
    CHECK(!error_of([&] { tracer->record(11, 9, 0, 0x80, slice(std::vector<uint8_t>(128, 1))); }).empty());
    CHECK(!error_of([&] { tracer->record(11, 0, 0, 0x80, slice(std::vector<uint8_t>(3, 1))); }).empty());
    tracer->finish();
    CHECK(!error_of([&] { tracer->record(12, 0, 0, 0, slice(std::vector<uint8_t>(128, 1))); }).empty());
    std::remove(path.c_str());
    CHECK(!error_of([] { memzip::open_tracer("/nonexistent-dir/trace.zst", 128); }).empty());
}

// What dram_cycle keeps in its DRAM latency queue (dram_delay_t).
struct delayed_request {
    int id;
    unsigned long long ready_cycle;
};

template <typename Queue>
static std::vector<int> ids_in_pop_order(Queue queue) {
    std::vector<int> ids;
    while (!queue.empty()) {
        ids.push_back(queue.front().id);
        queue.pop_front();
    }
    return ids;
}

static std::vector<int> ids_in_pop_order(std::queue<delayed_request> queue) {
    std::vector<int> ids;
    while (!queue.empty()) {
        ids.push_back(queue.front().id);
        queue.pop();
    }
    return ids;
}

// A write waiting 46 cycles in the compressor must not hold up the reads
// issued after it (gpgpu-sim pops only the queue's front); requests that
// add nothing keep their arrival order, as with push_back.
template <typename Queue>
static void latency_queue_keeps_ready_order() {
    Queue queue;
    const delayed_request arrivals[] = {
        {0, 100}, {1, 101 + 46}, {2, 102}, {3, 103}, {4, 103}, {5, 104 + 46}, {6, 150}, {7, 150}};
    for (const delayed_request& r : arrivals) memzip_latency_queue_insert(queue, r);
    CHECK((ids_in_pop_order(queue) == std::vector<int>{0, 2, 3, 4, 1, 5, 6, 7}));

    Queue in_order;
    for (int i = 0; i < 5; ++i) memzip_latency_queue_insert(in_order, delayed_request{i, 200ull + i / 2});
    CHECK((ids_in_pop_order(in_order) == std::vector<int>{0, 1, 2, 3, 4}));
}

int main() {
    flags_are_registered_and_resolved_once();
    controller_sizes_dram_traffic();
    none_changes_nothing();
    approximable_allocations_reach_slc();
    errors_arrive_as_exceptions();
    tracer_rejects_bad_input();
    latency_queue_keeps_ready_order<std::list<delayed_request>>();   // dev
    latency_queue_keeps_ready_order<std::queue<delayed_request>>();  // v3.2.1
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
