//! Model changes a run missed. Three changes to what a run simulates left
//! memzip's timing-model number ([`super::TIMING_MODEL`]) as it was, and each
//! left a mark in the files of the runs made after it; a run without the mark
//! simulated the older model. `memzip sweep` redoes such a run, `--reuse`
//! takes none as a source, and `memzip report` shows it marked with what it
//! missed (it is kept: a report of committed runs made before a change still
//! shows them, and says so).

use std::fs;
use std::path::Path;

use super::record::RunRecord;

/// The marks, each a JSON pointer into one of the run's files:
/// - on gpgpu-sim, every DRAM request meets memzip since `stats.json` counts
///   them (`total.requests`); before, requests other than one whole block
///   bypassed it (v3.2.1's unaligned line fills and partial writes, the QV100's
///   sector reads). On dev's GTX580 none did (DRAM column commands equalled
///   memzip's bursts in all 23 study programs' none runs before the change):
///   its runs stand;
/// - on gpgpu-sim dev, each block has its own metadata entry since the
///   channel-key fix, which came with the partial-read counters
///   (`total.partial.filled_sectors`); before, the blocks of the two L2
///   slices of a channel shared entries in pairs, so a codec run's reads were
///   sized by a neighbour's write (a `none` run reads no metadata: it stands);
/// - on MGPUSim, one compressor and one decompressor per GPU (the
///   adaptive-compression paper's) since `run.json` records the `platform`;
///   before, every message was compressed as if by a compressor of its own.
const REQUESTS: Mark = Mark {
    file: "stats.json",
    pointer: "/total/requests",
    missed: "made before every DRAM request met memzip (stats.json counts no requests)",
};
const CHANNEL_KEY: Mark = Mark {
    file: "stats.json",
    pointer: "/total/partial/filled_sectors",
    missed: "made before each block had its own metadata entry (the channel-key fix; stats.json has no partial.filled_sectors)",
};
const PLATFORM: Mark = Mark {
    file: "run.json",
    pointer: "/platform",
    missed: "made with unlimited compressors (run.json has no platform)",
};

/// A change's mark: what a run made after it has at `pointer` in `file`, and
/// what a run without it missed.
struct Mark {
    file: &'static str,
    pointer: &'static str,
    missed: &'static str,
}

/// What the finished run in `dir`, made by the sweep `record` describes,
/// missed of this memzip's model, or `None` when it missed nothing. A run
/// without the file (a test's fake run) has no mark to read: `None`.
pub fn missed_model_change(dir: &Path, record: &RunRecord) -> Option<&'static str> {
    let marks: &[Mark] = if record.simulator == "mgpusim" {
        &[PLATFORM]
    } else {
        match (record.simulator == "dev", record.gpu.is_default(), record.codec == "none") {
            (true, true, true) => &[],
            (true, true, false) => &[CHANNEL_KEY],
            (true, false, false) => &[REQUESTS, CHANNEL_KEY],
            _ => &[REQUESTS],
        }
    };
    marks.iter().find(|mark| lacks(dir, mark.file, mark.pointer)).map(|mark| mark.missed)
}

/// Whether the JSON file `file` of `run` parses and has nothing at `pointer`
/// (false when the file is missing or does not parse: no mark to read).
fn lacks(run: &Path, file: &str, pointer: &str) -> bool {
    let Ok(text) = fs::read_to_string(run.join(file)) else { return false };
    serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|json| json.pointer(pointer).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::Gpu;

    fn record(simulator: &str, gpu: Gpu, codec: &str) -> RunRecord {
        RunRecord {
            id: "r".into(),
            variant: None,
            benchmark: None,
            preset: None,
            program: None,
            codec: codec.into(),
            options: Vec::new(),
            gpu,
            simulator: simulator.into(),
            timing_model: crate::run::record::TIMING_MODEL,
            reused_from: None,
        }
    }

    /// A fresh directory named `name` holding `stats.json` with `total` (none when `total` is empty).
    fn run_with_stats(name: &str, total: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("memzip-marks-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        if !total.is_empty() {
            fs::write(dir.join("stats.json"), format!("{{\"total\": {total}}}")).unwrap();
        }
        dir
    }

    #[test]
    fn a_dev_gtx580_codec_run_without_the_channel_key_mark_missed_the_fix() {
        let before = run_with_stats("ck-before", r#"{"requests": {}, "partial": {"reads": 0}}"#);
        let after = run_with_stats("ck-after", r#"{"requests": {}, "partial": {"filled_sectors": 0}}"#);
        let mag_bdi = record("dev", Gpu::default(), "mag_bdi");
        assert_eq!(missed_model_change(before.as_path(), &mag_bdi), Some(CHANNEL_KEY.missed));
        assert_eq!(missed_model_change(after.as_path(), &mag_bdi), None);
        // A none run reads no metadata, and on the GTX580 every request met memzip already.
        assert_eq!(missed_model_change(before.as_path(), &record("dev", Gpu::default(), "none")), None);
    }

    #[test]
    fn a_v321_or_qv100_run_without_request_counts_missed_the_requests_that_bypassed_memzip() {
        let before = run_with_stats("rq-before", r#"{"partial": {"filled_sectors": 0}}"#);
        for record in [record("v3.2.1", Gpu::default(), "none"), record("dev", Gpu::Qv100, "none")] {
            assert_eq!(missed_model_change(before.as_path(), &record), Some(REQUESTS.missed));
        }
        let after = run_with_stats("rq-after", r#"{"requests": {}, "partial": {"filled_sectors": 0}}"#);
        assert_eq!(missed_model_change(after.as_path(), &record("dev", Gpu::Qv100, "bpc")), None);
    }

    #[test]
    fn a_run_without_its_files_has_no_mark_to_read() {
        let empty = run_with_stats("empty", "");
        assert_eq!(missed_model_change(empty.as_path(), &record("dev", Gpu::default(), "bdi")), None);
        assert_eq!(missed_model_change(empty.as_path(), &record("mgpusim", Gpu::default(), "bdi")), None);
    }
}
