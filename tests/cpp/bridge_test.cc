// Drives memzip's C++ objects (Controller, Compressor, Decompressor,
// MetadataCache, Stats, Tracer) through the cxx bridge, without the
// simulator: what the gpgpu-sim hooks rely on, checked from the C++ side;
// and the hooks' DRAM latency queue insertion (memzip_hooks.h).
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

static void controller_sizes_dram_traffic() {
    memzip::Options options = memzip::default_options();
    options.codec = "mag_bdi";
    options.verify = true;
    auto controller = memzip::new_controller(options);
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
    CHECK(!read.metadata_miss);

    memzip::Access never_written = controller->read_block(0x900000);
    CHECK(never_written.burst_count == 4);
    CHECK(never_written.latency_cycles == 0);

    auto total = memzip::new_stats();
    total->merge(*controller->stats());
    std::string text(total->to_text("memzip_total"));
    CHECK(text.find("memzip_total_blocks_written = 1\n") != std::string::npos);
    CHECK(text.find("memzip_total_verify_failures = 0\n") != std::string::npos);
    std::string json(total->to_json());
    CHECK(json.find("\"codec\": \"mag_bdi\"") != std::string::npos);
}

static void none_changes_nothing() {
    auto controller = memzip::new_controller(memzip::default_options());
    memzip::Access write = controller->write_block(0, slice(std::vector<uint8_t>(128, 0)));
    CHECK(write.dram_bytes == 128);
    CHECK(write.latency_cycles == 0);
    CHECK(write.metadata_dram_bytes == 0);
    memzip::Access read = controller->read_block(0);
    CHECK(read.dram_bytes == 128 && read.latency_cycles == 0 && read.metadata_cycles == 0);
}

static void errors_arrive_as_exceptions() {
    memzip::Options options = memzip::default_options();
    options.codec = "zip";
    std::string err = error_of([&] { memzip::validate_options(options); });
    CHECK(err.find("-memzip_codec: invalid codec 'zip'") == 0);
    options.codec = "bdi";
    options.mag_bytes = 48;
    err = error_of([&] { memzip::new_controller(options); });
    CHECK(err.find("-memzip_mag_bytes") == 0);

    auto controller = memzip::new_controller(memzip::default_options());
    err = error_of([&] { controller->write_block(0, slice(std::vector<uint8_t>(64, 0))); });
    CHECK(err.find("64 bytes") != std::string::npos);
}

static void compressor_and_decompressor_round_trip() {
    memzip::Options options = memzip::default_options();
    options.codec = "fpc";
    auto compressor = memzip::new_compressor(options);
    auto decompressor = compressor->decompressor();
    std::vector<uint8_t> block = small_ints();
    memzip::Compressed c = compressor->compress(slice(block));
    CHECK(c.encoding != 0);
    CHECK(c.compressed_bits < 1024);
    CHECK(c.burst_count == (c.compressed_bits + 255) / 256);
    rust::Vec<uint8_t> back = decompressor->decompress(c);
    CHECK(back.size() == block.size() && std::memcmp(back.data(), block.data(), block.size()) == 0);
    CHECK(decompressor->decompress_cycles(c.encoding) == 10);

    memzip::Compressed truncated = c;
    truncated.payload.clear();
    CHECK(!error_of([&] { decompressor->decompress(truncated); }).empty());
}

static void metadata_cache_hits_after_a_miss() {
    memzip::Options options = memzip::default_options();
    options.codec = "mag_bdi";
    auto cache = memzip::new_metadata_cache(options);
    CHECK(!cache->access(7, false));
    CHECK(cache->access(7, false));
    CHECK(cache->access(8, true));  // same 32-byte line: 128 blocks of 2 bits
    CHECK(cache->hits() == 2 && cache->misses() == 1);
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
    controller_sizes_dram_traffic();
    none_changes_nothing();
    errors_arrive_as_exceptions();
    compressor_and_decompressor_round_trip();
    metadata_cache_hits_after_a_miss();
    tracer_rejects_bad_input();
    latency_queue_keeps_ready_order<std::list<delayed_request>>();   // dev
    latency_queue_keeps_ready_order<std::queue<delayed_request>>();  // v3.2.1
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
