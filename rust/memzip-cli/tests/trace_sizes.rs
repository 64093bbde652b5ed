//! The sizes every codec gives the committed real DRAM traces
//! (`benchmarks/traces/`), pinned: `golden/trace_sizes.json` was written by
//! `memzip analyze --json` of the codecs as they were before the speed work
//! (commit 942d6ff, `--no-shannon --e2mc-sample-blocks 256`), so faster
//! codecs must give every trace the same blocks, bits, MAG bytes, stored-size
//! histogram and encodings. `analyze` runs every registered codec, and every
//! codec it runs must be pinned: a new codec fails here, named, until its
//! sizes are written. Bless (rewrite the file from the codecs as they are: a
//! new codec, or a deliberate format change said in the commit):
//!
//!     MEMZIP_BLESS=1 cargo test -p memzip-cli --test trace_sizes

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Map, Value};

mod common;

/// How to rewrite the golden file, for failure messages.
const BLESS: &str = "bless with MEMZIP_BLESS=1 cargo test -p memzip-cli --test trace_sizes";

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
    let out = Command::new(env!("CARGO_BIN_EXE_memzip"))
        .arg("analyze")
        .args(&traces)
        .args(["--no-shannon", "--e2mc-sample-blocks", "256", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let now = pinned_fields(&now);
    if std::env::var_os("MEMZIP_BLESS").is_some() {
        let text = common::one_space_indent(&serde_json::to_string_pretty(&now).unwrap());
        std::fs::write(manifest.join("tests/golden/trace_sizes.json"), text).unwrap();
        return;
    }
    let mut compared = 0;
    for (name, codecs) in now.as_object().unwrap() {
        for (codec_name, sizes) in codecs.as_object().unwrap() {
            let pinned = golden[name].get(codec_name);
            assert!(pinned.is_some(), "golden/trace_sizes.json has no sizes for codec '{codec_name}': {BLESS}");
            for key in KEPT {
                assert_eq!(&sizes[key], &pinned.unwrap()[key], "{name} {codec_name} {key}");
            }
            compared += 1;
        }
    }
    let pinned_codecs = golden.values().next().unwrap().as_object().unwrap().len();
    assert_eq!(
        compared,
        golden.len() * pinned_codecs,
        "every pinned trace and codec compared ({BLESS} if one was removed)"
    );
}

/// `analyze --json`'s document reduced to what the golden file pins: trace
/// file name -> codec -> the [`KEPT`] fields.
fn pinned_fields(document: &Value) -> Value {
    let mut traces = Map::new();
    for trace in document["traces"].as_array().unwrap() {
        let name = trace["trace"].as_str().unwrap().rsplit('/').next().unwrap();
        let mut codecs = Map::new();
        for codec in trace["codecs"].as_array().unwrap() {
            let kept: Map<String, Value> = KEPT.iter().map(|key| (key.to_string(), codec[*key].clone())).collect();
            codecs.insert(codec["codec"].as_str().unwrap().to_string(), Value::Object(kept));
        }
        traces.insert(name.to_string(), Value::Object(codecs));
    }
    Value::Object(traces)
}
