//! The sizes every codec gives the committed real DRAM traces
//! (`benchmarks/traces/`), pinned: `golden/trace_sizes.json` was written by
//! `memzip analyze --json` of the codecs as they were before the speed work
//! (commit 942d6ff, `--no-shannon --e2mc-sample-blocks 256`), so faster
//! codecs must give every trace the same blocks, bits, MAG bytes, stored-size
//! histogram and encodings. A deliberate format change regenerates the file
//! the same way and says so in its commit.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const KEPT: [&str; 6] =
    ["blocks", "compressed_blocks", "compressed_bits", "mag_bytes", "mag_size_histogram", "encodings"];

#[test]
fn real_trace_sizes_equal_the_pinned_ones() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(manifest.join("tests/golden/trace_sizes.json")).unwrap())
            .unwrap();
    let golden = golden.as_object().unwrap();
    let traces_dir = manifest.join("../../benchmarks/traces");
    let traces: Vec<PathBuf> = golden.keys().map(|name| traces_dir.join(name)).collect();
    assert!(traces.len() >= 10, "the golden file names the committed traces");
    let json = std::env::temp_dir().join(format!("memzip-trace-sizes-{}.json", std::process::id()));
    let codecs: Vec<&str> = golden.values().next().unwrap().as_object().unwrap().keys().map(String::as_str).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_memzip"))
        .arg("analyze")
        .args(&traces)
        .args(["--no-shannon", "--e2mc-sample-blocks", "256", "--codecs", &codecs.join(",")])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let mut compared = 0;
    for trace in now["traces"].as_array().unwrap() {
        let name = trace["trace"].as_str().unwrap().rsplit('/').next().unwrap();
        for codec in trace["codecs"].as_array().unwrap() {
            let codec_name = codec["codec"].as_str().unwrap();
            let pinned = &golden[name][codec_name];
            for key in KEPT {
                assert_eq!(&codec[key], &pinned[key], "{name} {codec_name} {key}");
            }
            compared += 1;
        }
    }
    assert_eq!(compared, golden.len() * codecs.len(), "every pinned trace and codec compared");
}
