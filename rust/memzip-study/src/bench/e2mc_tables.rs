//! The E2MC offline tables of a benchmark's input ("E2MC: Entropy Encoding
//! Based Memory Compression for GPUs", Section III-B2: probabilities
//! profiled from a run of the program, then fixed): one table per symbol
//! length, profiled from the DRAM block trace of a `none` run of the same
//! binary and input, cached per benchmark, preset and simulator version.
//!
//! A table carries a stamp (`e2mc<bits>.json.stamp`): the build's stamp, a
//! checksum of the input's files and the symbol length. A table whose stamp
//! differs from the current one is profiled again. Runs of one benchmark may
//! start together (`memzip sweep -j N`): the cache folder's lock lets one
//! profile while the others wait and then find the table ready.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use crate::error::AnalyzeError;
use crate::profile::{profile, Profile, ProfileOptions};

/// The symbol lengths E2MC codes.
const SYMBOL_BITS: [u32; 4] = [4, 8, 16, 32];

/// The table cache of one benchmark input.
pub struct TableCache {
    pub dir: PathBuf,
    /// `<build stamp> input <input checksum>`: what a table must be of.
    key: String,
}

impl TableCache {
    /// `cache/e2mc/<suite>/<name>/<preset>@<version>`.
    pub fn new(cache: &Path, benchmark: &str, preset: &str, version: &str, build_stamp: &str, input_sum: &str) -> Self {
        TableCache {
            dir: cache.join("e2mc").join(benchmark).join(format!("{preset}@{version}")),
            key: format!("{build_stamp} input {input_sum}"),
        }
    }

    fn table(&self, bits: u32) -> PathBuf {
        self.dir.join(format!("e2mc{bits}.json"))
    }

    fn stamp(&self, bits: u32) -> PathBuf {
        self.dir.join(format!("e2mc{bits}.json.stamp"))
    }

    /// Whether the table of `bits` exists and is of this binary and input.
    fn is_current(&self, bits: u32) -> bool {
        let stamp = fs::read_to_string(self.stamp(bits)).unwrap_or_default();
        self.table(bits).is_file() && stamp.trim_end_matches('\n') == format!("{} {bits}", self.key)
    }

    /// Takes the folder's lock (released when the file is dropped).
    fn lock(&self) -> Result<File, String> {
        fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let path = self.dir.join(".lock");
        let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        file.lock().map_err(|e| format!("{}: cannot lock: {e}", path.display()))?;
        Ok(file)
    }

    /// Profiles `trace` at `bits` into the cache, stamped.
    fn profile_into(&self, trace: &Path, bits: u32) -> Result<(), String> {
        let profiled = profile(&[trace], &ProfileOptions::new(bits))
            .map_err(|e| format!("memzip e2mc-profile of {}: {e}", trace.display()))?;
        self.write(&profiled, bits)
    }

    /// Writes the table `profiled` of `bits` into the cache, stamped.
    fn write(&self, profiled: &Profile, bits: u32) -> Result<(), String> {
        let table = self.table(bits);
        profiled.write_table(&table)?;
        eprintln!("{}", profiled.describe(1, &table));
        fs::write(self.stamp(bits), format!("{} {bits}\n", self.key)).map_err(|e| format!("{}: {e}", table.display()))
    }

    /// The tables of every symbol length from the trace of a `none` run of
    /// this binary and input (the same trace a profiling run would make), so
    /// that a later offline run profiles nothing.
    pub fn seed(&self, trace: &Path) -> Result<(), String> {
        if !trace.is_file() {
            return Ok(());
        }
        let _lock = self.lock()?;
        for bits in SYMBOL_BITS.into_iter().filter(|&bits| !self.is_current(bits)) {
            match profile(&[trace], &ProfileOptions::new(bits)) {
                Ok(profiled) => self.write(&profiled, bits)?,
                // A program whose data never leaves the L2 writes nothing back: the
                // run stands, and an offline run of this input profiles for itself.
                Err(AnalyzeError::Nothing { message }) => {
                    eprintln!("==> no E2MC tables from this run's trace: {message}");
                    return Ok(());
                }
                Err(e) => return Err(format!("memzip e2mc-profile of {}: {e}", trace.display())),
            }
        }
        Ok(())
    }

    /// The table of `bits`, profiled when missing or stale: `profiling_run`
    /// simulates the benchmark with codec `none` writing its trace to the
    /// path it is given; the trace is removed afterwards (large; the table
    /// and the profiling run's small files stay).
    pub fn table_for(
        &self,
        bits: u32,
        profiling_run: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<PathBuf, String> {
        let _lock = self.lock()?;
        if !self.is_current(bits) {
            let trace = self.dir.join("trace.zst");
            profiling_run(&trace)?;
            self.profile_into(&trace, bits)?;
            fs::remove_file(&trace).map_err(|e| format!("{}: {e}", trace.display()))?;
        }
        Ok(self.table(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_current_only_with_its_stamp() {
        let root = std::env::temp_dir().join(format!("memzip-e2mc-tables-{}", std::process::id()));
        let cache = TableCache::new(&root, "rodinia/bfs", "tiny", "dev", "abc nvcc", "123 45");
        assert_eq!(cache.dir, root.join("e2mc/rodinia/bfs/tiny@dev"));
        fs::create_dir_all(&cache.dir).unwrap();
        assert!(!cache.is_current(16));
        fs::write(cache.table(16), "{}").unwrap();
        fs::write(cache.stamp(16), "abc nvcc input 123 45 16\n").unwrap();
        assert!(cache.is_current(16), "the stamp bench.sh wrote is still current");
        assert!(!cache.is_current(8));
        let other_input = TableCache::new(&root, "rodinia/bfs", "tiny", "dev", "abc nvcc", "999 45");
        assert!(!other_input.is_current(16));
        let mut ran = false;
        let path = cache.table_for(16, |_| {
            ran = true;
            Ok(())
        });
        assert_eq!((path.unwrap(), ran), (cache.table(16), false), "a current table is not profiled again");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_trace_without_write_backs_seeds_no_table_and_fails_nothing() {
        use memzip::trace::{AccessKind, TraceWriter};
        let root = std::env::temp_dir().join(format!("memzip-e2mc-seed-reads-{}", std::process::id()));
        let cache = TableCache::new(&root, "ispass-2009/LIB", "study", "dev@qv100", "abc nvcc", "123 45");
        fs::create_dir_all(&root).unwrap();
        // A program whose data stay in the L2: DRAM only reads (LIB on the QV100).
        let trace = root.join("trace.zst");
        let mut writer = TraceWriter::new(File::create(&trace).unwrap(), 128).unwrap();
        writer.write_access(10, AccessKind::Read, 0, 0x1000, &[7u8; 128]).unwrap();
        writer.finish().unwrap();
        assert_eq!(cache.seed(&trace), Ok(()), "the none run stands");
        assert!(SYMBOL_BITS.iter().all(|&bits| !cache.table(bits).exists()), "no table from nothing");
        fs::remove_dir_all(&root).unwrap();
    }
}
