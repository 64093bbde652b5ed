//! The GPU a run simulates (`--gpu`, run.json's `gpu`, a sweep spec's
//! `gpus`): the GTX580 config the papers used (memzip's default, derived from
//! gpgpu-sim's GTX480 config), or one derived from gpgpu-sim dev's tested
//! configs, `SM7_QV100` (Volta, HBM2, 32-byte accesses) and `SM86_RTX3070`
//! (Ampere, GDDR6). `scripts/sim-run.sh --gpu` sets the config up; this only
//! names the choice and rejects what cannot run.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A GPU memzip can simulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Gpu {
    /// Fermi, GDDR5: the config every committed run used.
    #[default]
    Gtx580,
    /// Volta, HBM2 (gpgpu-sim dev's `SM7_QV100`).
    Qv100,
    /// Ampere, GDDR6 (gpgpu-sim dev's `SM86_RTX3070`).
    Rtx3070,
}

/// Every GPU, in the order error messages list them.
pub const GPUS: [Gpu; 3] = [Gpu::Gtx580, Gpu::Qv100, Gpu::Rtx3070];

impl Gpu {
    /// The name flags, run.json and run ids use.
    pub fn name(self) -> &'static str {
        match self {
            Gpu::Gtx580 => "gtx580",
            Gpu::Qv100 => "qv100",
            Gpu::Rtx3070 => "rtx3070",
        }
    }

    /// Whether this is the default GPU (run.json without `gpu`, sweep
    /// records and run ids without one).
    pub fn is_default(&self) -> bool {
        *self == Gpu::default()
    }

    /// The valid names, for error messages.
    pub fn names() -> String {
        GPUS.map(Gpu::name).join(", ")
    }

    /// Rejects a GPU the simulator `version` (`dev`, `v3.2.1`, either with
    /// `-baseline`) has no config for: v3.2.1 predates the QV100 and RTX3070
    /// configs (gpgpu-sim dev's `configs/tested-cfgs`), so it runs the GTX580 only.
    pub fn check_version(self, version: &str) -> Result<(), String> {
        if self.is_default() || version.trim_end_matches("-baseline") == "dev" {
            return Ok(());
        }
        Err(format!(
            "--gpu {}: gpgpu-sim {version} has the gtx580 config only (the {} config needs --version dev)",
            self.name(),
            self.name()
        ))
    }
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Gpu {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        GPUS.into_iter()
            .find(|gpu| gpu.name() == text)
            .ok_or_else(|| format!("--gpu '{text}': not a GPU memzip simulates (valid: {})", Gpu::names()))
    }
}

impl Serialize for Gpu {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Gpu {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(|_| {
            serde::de::Error::custom(format!("gpu '{text}' is not a GPU memzip simulates (valid: {})", Gpu::names()))
        })
    }
}

/// The simulator version a run without `--version` uses: as scripts/sim-run.sh
/// decides it (`MEMZIP_GPGPUSIM_VERSION`, else dev).
pub fn default_version() -> String {
    std::env::var("MEMZIP_GPGPUSIM_VERSION").ok().filter(|v| !v.is_empty()).unwrap_or_else(|| "dev".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_a_bad_name_lists_the_valid_ones() {
        for gpu in GPUS {
            assert_eq!(gpu.name().parse::<Gpu>(), Ok(gpu));
        }
        assert_eq!(Gpu::default(), Gpu::Gtx580);
        let err = "v100".parse::<Gpu>().unwrap_err();
        assert_eq!(err, "--gpu 'v100': not a GPU memzip simulates (valid: gtx580, qv100, rtx3070)");
        assert!("QV100".parse::<Gpu>().is_err(), "names are lower case, as run ids have them");
    }

    #[test]
    fn v3_2_1_runs_the_gtx580_only() {
        assert!(Gpu::Gtx580.check_version("v3.2.1").is_ok());
        assert!(Gpu::Qv100.check_version("dev").is_ok());
        assert!(Gpu::Rtx3070.check_version("dev-baseline").is_ok());
        let err = Gpu::Qv100.check_version("v3.2.1").unwrap_err();
        assert_eq!(
            err,
            "--gpu qv100: gpgpu-sim v3.2.1 has the gtx580 config only (the qv100 config needs --version dev)"
        );
        assert!(Gpu::Rtx3070.check_version("v3.2.1-baseline").is_err());
    }

    #[test]
    fn serialises_as_its_name() {
        assert_eq!(serde_json::to_string(&Gpu::Qv100).unwrap(), "\"qv100\"");
        assert_eq!(serde_json::from_str::<Gpu>("\"rtx3070\"").unwrap(), Gpu::Rtx3070);
        let err = serde_json::from_str::<Gpu>("\"h100\"").unwrap_err().to_string();
        assert!(err.contains("gpu 'h100' is not a GPU memzip simulates (valid: gtx580, qv100, rtx3070)"), "{err}");
    }
}
