//! `memzip`: the command-line front of `memzip-study` (offline codec
//! analysis of DRAM block traces, tables, sweeps and reports of simulator
//! runs): arguments in, one library call, output out. Errors go to stderr as
//! one line naming the file, exit 1.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use memzip::codec::cost_profile::CostProfile;
use memzip::codec::registry::codec_names;
use memzip_study::analyze::{self, AnalyzeOptions, AnalyzeReport, OfflineTable};
use memzip_study::bench;
use memzip_study::files::write_atomically;
use memzip_study::float_bounds::ElementFormat;
use memzip_study::gpu::Gpu;
use memzip_study::manifest::{find_repo, repo_root};
use memzip_study::profile::{self, ProfileOptions};
use memzip_study::report;
use memzip_study::run;
use memzip_study::shannon;
use memzip_study::simulate;
use memzip_study::sweep::{self, slurm};
use memzip_study::table;

#[derive(Parser)]
#[command(name = "memzip", version, about = "GPU memory-compression research tool")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate codecs offline on the blocks of -memzip_trace files (one pass per trace).
    Analyze(AnalyzeArgs),
    /// Build an E2MC code table from the blocks of traces (offline probabilities, the E2MC paper).
    E2mcProfile(ProfileArgs),
    /// Compare simulator runs: cycles, speedup and DRAM traffic vs the `none` run.
    Table(TableArgs),
    /// Whole-GPU energy of runs made with the simulator's power model on
    /// (`scripts/sim-run.sh --power`): JSON, one object per run.
    Power(PowerArgs),
    /// Run a grid of simulations (programs x codecs x option sets); resumable.
    Sweep(SweepArgs),
    /// Tables (markdown, CSV) and SVG figures of a directory of runs.
    Report(ReportArgs),
    /// Run one program under the memzip-patched gpgpu-sim with one codec into
    /// a run directory, and record the run (run.json).
    Run(RunArgs),
    /// Real benchmarks from their upstream sources: list, run, table, analyze.
    Bench(BenchArgs),
    /// The error a lossy codec cost on a run's output: the mean relative
    /// error of its output values against an exact run's, recorded in its
    /// run.json (`memzip bench run` does it for benchmarks).
    OutputError(OutputErrorArgs),
}

#[derive(Args)]
struct PowerArgs {
    /// Run directories (sim.log, stats.json and the power model's report).
    #[arg(required = true)]
    runs: Vec<PathBuf>,
}

#[derive(Args)]
struct RunArgs {
    /// The -memzip_codec value (none, bdi, mag_bdi, ..., or name:knob=value).
    #[arg(long)]
    codec: String,
    /// The run directory (emptied if it exists): gpgpusim.config, sim.log,
    /// stats.json, run.json.
    #[arg(long)]
    out: PathBuf,
    /// Simulator config directory (default: our GTX580-MAG32 config).
    #[arg(long)]
    config: Option<PathBuf>,
    /// One more simulator option line, e.g. --set "-memzip_verify 1" (repeatable).
    #[arg(long = "set", value_name = "LINE", allow_hyphen_values = true)]
    sets: Vec<String>,
    /// The program's output must match this regex (grep -E) to count as
    /// right, on top of exit status 0.
    #[arg(long, allow_hyphen_values = true)]
    expect: Option<String>,
    /// The run's program in run.json, which `memzip table` groups runs by
    /// (default: the program's name and arguments).
    #[arg(long)]
    label: Option<String>,
    /// Simulator version: dev (default, or $MEMZIP_GPGPUSIM_VERSION) or
    /// v3.2.1; *-baseline: the unpatched simulator (--codec none only).
    #[arg(long)]
    version: Option<String>,
    /// The GPU simulated: gtx580 (the papers' config), qv100 or rtx3070
    /// (gpgpu-sim dev's Volta and Ampere configs; not on v3.2.1).
    #[arg(long, default_value = "gtx580", value_name = "NAME")]
    gpu: String,
    /// The simulator's own power model (GPUWattch on v3.2.1, AccelWattch on dev).
    #[arg(long)]
    power: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    argv: Vec<String>,
}

#[derive(Args)]
struct OutputErrorArgs {
    /// The exact output: values (numbers separated by white space, e.g. one
    /// a line) of a run that approximated nothing; a `*.zst` file is read
    /// decompressed (a collected run's values.txt.zst).
    #[arg(long)]
    exact: PathBuf,
    /// The run's output values (default: RUN_DIR/values.txt).
    #[arg(long)]
    values: Option<PathBuf>,
    /// The run directory whose run.json records the error.
    run: PathBuf,
}

#[derive(Args)]
struct BenchArgs {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Every benchmark: suite, presets, output check, memory or compute bound, status.
    List,
    /// Fetch, build and run one benchmark under the simulator and check its output.
    Run(BenchRunArgs),
    /// `memzip table` of benchmark runs (default: every run in the cache).
    Table(BenchTableArgs),
    /// Redo the analyses of finished none runs that kept their trace.zst
    /// (analyze.json, analyze.txt, the sensitivity analyses).
    Analyze {
        #[arg(required = true, value_name = "RUN_DIR")]
        runs: Vec<PathBuf>,
    },
}

#[derive(Args)]
struct BenchRunArgs {
    /// The benchmark: suite/name, or a name only one suite has (`memzip bench list`).
    #[arg(required_unless_present = "benchmark", conflicts_with = "benchmark")]
    name: Option<String>,
    /// The benchmark (the form `memzip sweep` uses).
    #[arg(long)]
    benchmark: Option<String>,
    #[arg(long)]
    codec: String,
    /// The input size (the manifest's PRESETS).
    #[arg(long, default_value = "tiny")]
    preset: String,
    /// The run directory (default: in the cache's benchmarks/results/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Simulator version: dev (default, or $MEMZIP_GPGPUSIM_VERSION) or v3.2.1.
    #[arg(long)]
    version: Option<String>,
    /// The GPU simulated: gtx580 (the papers' config), qv100 or rtx3070
    /// (gpgpu-sim dev's Volta and Ampere configs; not on v3.2.1).
    #[arg(long, default_value = "gtx580", value_name = "NAME")]
    gpu: String,
    /// E2MC with offline probabilities: a profiling run (codec none, its
    /// trace) of the same benchmark and preset gives the table, cached. The
    /// same as --set "-memzip_e2mc_sampling offline:auto".
    #[arg(long, value_parser = ["offline"])]
    e2mc: Option<String>,
    /// One more simulator option line (repeatable). A none run with
    /// "-memzip_trace FILE" also caches the E2MC tables of its input and
    /// writes the analyses of its trace.
    #[arg(long = "set", value_name = "LINE", allow_hyphen_values = true)]
    sets: Vec<String>,
}

#[derive(Args)]
struct BenchTableArgs {
    /// Run directories (default: every benchmark run in the cache).
    runs: Vec<PathBuf>,
    /// Print CSV instead of the aligned table.
    #[arg(long, conflicts_with = "markdown")]
    csv: bool,
    /// Print a markdown table instead of the aligned table.
    #[arg(long)]
    markdown: bool,
}

#[derive(Args)]
struct ReportArgs {
    /// Directories of run directories (`memzip sweep` results); several make
    /// one report (a study on two GPUs, each against its own `none` runs).
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Where summary.md, summary.csv and the figures go.
    #[arg(long, short)]
    output: PathBuf,
    /// A program without a benchmark manifest that says how it is bound
    /// (`BOUND`) counts as memory-bound when its `none` run's DRAM bandwidth
    /// utilisation is at least this (0 to 1); the summary gives the geometric
    /// means of memory-bound programs and of the others apart.
    #[arg(long, default_value_t = 0.4, value_parser = parse_share)]
    memory_bound_util: f64,
    /// Report only this program (repeatable): a benchmark (`rodinia/backprop`)
    /// or a program with its preset (`rodinia/backprop study`), e.g. a paper's
    /// benchmark list for its averages.
    #[arg(long = "program", value_name = "PROGRAM")]
    programs: Vec<String>,
}

#[derive(Args)]
struct SweepArgs {
    /// The spec (JSON): {"runs": [{"name", "argv", "codecs", "option_sets"?, "gpus"?, "expect"?}
    /// or {"benchmark", "presets"?, "codecs", "option_sets"?, "gpus"?, "name"?}]}.
    spec: PathBuf,
    /// Results directory: one run directory per run.
    #[arg(long, short, default_value = "sweep-results")]
    out: PathBuf,
    /// Runs at once.
    #[arg(long, short, default_value_t = 1)]
    jobs: usize,
    /// The runner command (default: `memzip run` for argv entries,
    /// `memzip bench run` for benchmarks); it gets
    /// --codec C --out DIR [--set LINE]... [--gpu NAME] [--expect RE], then
    /// -- ARGV... or --benchmark NAME --preset P (--gpu when not gtx580).
    #[arg(long, num_args = 1.., allow_hyphen_values = true)]
    runner: Vec<String>,
    /// The GPU of every entry that lists no `gpus`: gtx580 (the papers'
    /// config), qv100 or rtx3070 (gpgpu-sim dev's Volta and Ampere configs).
    #[arg(long, default_value = "gtx580", value_name = "NAME")]
    gpu: String,
    /// Only list the runs the spec expands to (id, codec, option lines,
    /// program, GPU; tab-separated).
    #[arg(long)]
    dry_run: bool,
    /// Only estimate the CPU time of the runs not done in --out: each at the
    /// CPU seconds of the `none` run of its program, input, GPU and simulator
    /// found in --out or an --estimate-from directory (one line per run, then
    /// the total); runs nothing.
    #[arg(long, conflicts_with_all = ["dry_run", "slurm", "adopt"])]
    estimate: bool,
    /// A results directory whose `none` runs --estimate may use (repeatable).
    #[arg(long, value_name = "DIR", requires = "estimate")]
    estimate_from: Vec<PathBuf>,
    /// Submit the missing runs as one Slurm job array (sbatch) instead of
    /// running them here; then wait for it and collect the results.
    #[arg(long)]
    slurm: bool,
    /// Slurm partition (default: the cluster's default).
    #[arg(long, requires = "slurm")]
    partition: Option<String>,
    /// Slurm time limit per run (sbatch --time: `30`, `2:00:00`).
    #[arg(long, requires = "slurm")]
    time: Option<String>,
    /// One more sbatch option, e.g. --sbatch-arg=--mem=4G (repeatable).
    #[arg(long = "sbatch-arg", requires = "slurm", allow_hyphen_values = true)]
    sbatch_args: Vec<String>,
    /// Submit and return without waiting; a later sweep collects (and
    /// resubmits what did not finish).
    #[arg(long, requires = "slurm")]
    no_wait: bool,
    /// A results directory whose finished runs may stand in for this spec's
    /// runs of the same configuration (benchmark, preset, codec string,
    /// simulator, option lines less -memzip_trace; by their sweep.json):
    /// they are copied instead of simulated again (repeatable).
    #[arg(long, value_name = "DIR")]
    reuse: Vec<PathBuf>,
    /// Write sweep.json (this spec's configuration of the run) into the
    /// finished runs in --out that lack one (results made before sweeps
    /// recorded it), then stop.
    #[arg(long, conflicts_with_all = ["dry_run", "slurm", "reuse"])]
    adopt: bool,
    /// Stop a run still going after this long and record it as failed (a
    /// simulation that never ends would hold its worker forever): seconds,
    /// or with s, m or h (`90m`, `2h`). With --slurm, use --time.
    #[arg(long, value_name = "DURATION", value_parser = sweep::parse_timeout, conflicts_with = "slurm")]
    timeout: Option<std::time::Duration>,
    /// Run exactly this run id (what each Slurm array task does).
    #[arg(long, hide = true, conflicts_with = "slurm")]
    only_run: Option<String>,
}

#[derive(Args)]
struct AnalyzeArgs {
    /// Trace files written by the simulator's -memzip_trace.
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// Codec specs, comma-separated (knobs may follow: `adaptive:lambda=6,candidates=fpc/bdi`).
    /// Default: every registered codec.
    #[arg(long)]
    codecs: Vec<String>,
    /// Memory access granularity in bytes (16, 32 or 64 for DRAM; any power of two down to 1
    /// for a link: 1 for the payloads memzip-mgpu traces).
    #[arg(long, default_value_t = 32)]
    mag_bytes: usize,
    /// Latencies where a codec spec sets none (they steer adaptive's choices): `memzip` (each
    /// codec's own) or `paper004` (the multi-GPU paper's Table III, as memzip-mgpu uses).
    #[arg(long, default_value = "memzip", value_parser = |s: &str| s.parse::<CostProfile>())]
    costs: CostProfile,
    /// Also analyse blocks read from DRAM (default: write-backs and host-to-device copies,
    /// the blocks DRAM stores); for a multi-GPU payload trace, the data-ready payloads.
    #[arg(long)]
    include_reads: bool,
    /// Online sampling: call end_sampling() on every codec after this many analysed blocks
    /// (E2MC builds its code table then; other codecs ignore it).
    #[arg(long, default_value_t = analyze::DEFAULT_SAMPLE_BLOCKS)]
    e2mc_sample_blocks: u64,
    /// Offline E2MC code table (JSON from `memzip e2mc-profile`): the e2mc codec of its symbol
    /// length starts from it instead of sampling online.
    #[arg(long)]
    e2mc_table: Option<PathBuf>,
    /// Offline probabilities from the trace itself (the E2MC paper Fig. 9a): every e2mc codec without
    /// a --e2mc-table starts from a table profiled from the trace it analyses (one more pass per
    /// symbol length), so no codec depends on --e2mc-sample-blocks.
    #[arg(long)]
    e2mc_offline: bool,
    /// Symbol lengths for the Shannon bound, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = shannon::SYMBOL_BITS)]
    shannon_bits: Vec<u32>,
    /// Skip the Shannon bound.
    #[arg(long, conflicts_with = "shannon_bits")]
    no_shannon: bool,
    /// Distinct 32-bit values counted for the 32-bit bound before counting stops (bounds memory).
    #[arg(long, default_value_t = shannon::DEFAULT_MAX_DISTINCT)]
    shannon_max_distinct: usize,
    /// What the blocks hold (fp32, bf16, fp16, e4m3, e5m2, int8): adds the tensor bounds, the
    /// order-0 entropy of the whole value and of the exponent field (sign and mantissa raw),
    /// and fpexp's symbol profile.
    #[arg(long, value_name = "FORMAT", value_parser = |s: &str| s.parse::<ElementFormat>())]
    element_format: Option<ElementFormat>,
    /// Decompress every block and check it equals the original.
    #[arg(long)]
    verify: bool,
    /// Also write the results as JSON to this file (`-`: stdout, instead of the text table).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Blocks read per chunk (memory use is a few chunks).
    #[arg(long, default_value_t = analyze::DEFAULT_CHUNK_BLOCKS)]
    chunk_blocks: usize,
    /// Worker threads for the codecs (0: one per core).
    #[arg(short, long, default_value_t = 0)]
    jobs: usize,
}

#[derive(Args)]
struct ProfileArgs {
    /// Trace files to sample (all of them, in order, into one table).
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// Where to write the table (JSON).
    #[arg(short, long)]
    output: PathBuf,
    /// Symbol length: 4, 8, 16 or 32.
    #[arg(long, default_value_t = 16)]
    symbol_bits: u32,
    /// Most frequent values given codes (16/32-bit symbols).
    #[arg(long, default_value_t = memzip::codec::e2mc::table::DEFAULT_MFV)]
    mfv: usize,
    /// Also sample blocks read from DRAM.
    #[arg(long)]
    include_reads: bool,
}

#[derive(Args)]
struct TableArgs {
    /// Run directories, each with stats.json, sim.log and optionally run.json.
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Print CSV instead of the aligned table.
    #[arg(long, conflicts_with = "markdown")]
    csv: bool,
    /// Print a markdown table instead of the aligned table.
    #[arg(long)]
    markdown: bool,
}

/// Worker threads for `analyze`: one task per codec and per Shannon bound,
/// each of which may use every core, so more threads than that only cost
/// (`--jobs 100000` took minutes to start).
fn analyze_threads(jobs: usize, tasks: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = tasks.max(1) * cores;
    if jobs > cap {
        eprintln!("memzip analyze: note: --jobs {jobs} capped at {cap} ({tasks} codecs and bounds x {cores} cores)");
    }
    jobs.min(cap)
}

/// Rejects analyze arguments that would run but measure nothing.
fn check_analyze_args(args: &AnalyzeArgs, codecs: &[String]) -> Result<(), String> {
    if !args.codecs.is_empty() && codecs.is_empty() {
        return Err(format!("--codecs: no codec given (names: {})", codec_names().join(", ")));
    }
    if args.e2mc_sample_blocks == 0 {
        return Err("--e2mc-sample-blocks: invalid value '0': expected at least 1 block to sample".into());
    }
    if args.shannon_max_distinct == 0 {
        return Err("--shannon-max-distinct: invalid value '0': expected at least 1 distinct value".into());
    }
    Ok(())
}

fn run_analyze(args: AnalyzeArgs) -> Result<(), String> {
    let codecs: Vec<String> = if args.codecs.is_empty() {
        codec_names().into_iter().map(String::from).collect()
    } else {
        args.codecs.iter().flat_map(|list| analyze::split_codec_list(list)).collect()
    };
    check_analyze_args(&args, &codecs)?;
    let shannon_tasks = if args.no_shannon { 0 } else { args.shannon_bits.len() };
    let jobs = analyze_threads(args.jobs, codecs.len() + shannon_tasks);
    if jobs > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build_global()
            .map_err(|e| format!("cannot start {jobs} worker threads: {e}"))?;
    }
    let mut options = AnalyzeOptions::new(codecs);
    options.mag_bytes = args.mag_bytes;
    options.costs = args.costs;
    options.include_reads = args.include_reads;
    options.chunk_blocks = args.chunk_blocks;
    options.sample_blocks = args.e2mc_sample_blocks;
    options.verify = args.verify;
    options.e2mc_self_profile = args.e2mc_offline;
    options.shannon_bits = if args.no_shannon { Vec::new() } else { args.shannon_bits.clone() };
    options.shannon_max_distinct = args.shannon_max_distinct;
    options.element_format = args.element_format;
    if let Some(path) = &args.e2mc_table {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read E2MC table: {e}", path.display()))?;
        options.e2mc_table = Some(OfflineTable::parse(text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let analyses = analyze::analyze(&args.traces, &options)?;

    let json_to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !json_to_stdout {
        print!("{}", analyze::render_all(&analyses));
    }
    if let Some(path) = &args.json {
        let json = AnalyzeReport::new(&options, args.e2mc_table.as_ref().map(|p| p.display().to_string()), &analyses)
            .to_json()?;
        if json_to_stdout {
            print!("{json}");
        } else {
            write_atomically(path, json.as_bytes())?;
        }
    }
    Ok(())
}

fn run_profile(args: ProfileArgs) -> Result<(), String> {
    let mut options = ProfileOptions::new(args.symbol_bits);
    options.mfv = args.mfv;
    options.include_reads = args.include_reads;
    let profile = profile::profile(&args.traces, &options)?;
    profile.write_table(&args.output)?;
    println!("{}", profile.describe(args.traces.len(), &args.output));
    Ok(())
}

fn run_table(args: TableArgs) -> Result<(), String> {
    let (rows, damaged) = table::load_sound_rows(&args.runs)?;
    if args.csv {
        print!("{}", table::render_csv(&rows));
    } else if args.markdown {
        print!("{}", table::render_markdown(&rows));
    } else {
        print!("{}", table::render_text(&rows));
    }
    left_out(&damaged)
}

/// Each run directory a table or report left out, one line each on stderr,
/// and an error saying how many (the command printed every other run).
fn left_out(damaged: &[impl std::fmt::Display]) -> Result<(), String> {
    for error in damaged {
        eprintln!("memzip: left out: {error}");
    }
    match damaged.len() {
        0 => Ok(()),
        n => Err(format!(
            "{n} run director{} left out (above); the other runs are shown",
            if n == 1 { "y" } else { "ies" }
        )),
    }
}

fn run_sweep(args: SweepArgs) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let repo = find_repo(&cwd).unwrap_or_else(|| cwd.clone());
    let gpu: Gpu = args.gpu.parse()?;
    let runs = sweep::expand(&sweep::load_spec(&args.spec)?.with_default_gpu(gpu), &repo)?;
    if args.dry_run {
        for run in &runs {
            let what = match &run.target {
                sweep::Target::Program(argv) => argv.join(" "),
                sweep::Target::Benchmark { name, preset } => format!("{name} ({preset})"),
            };
            println!("{}\t{}\t{}\t{what}\t{}", run.id, run.codec, run.options.join("; "), run.gpu);
        }
        return Ok(());
    }
    if args.estimate {
        print!("{}", sweep::estimate(&runs, &args.out, &args.estimate_from)?.with_jobs(args.jobs));
        return Ok(());
    }
    let runners = if args.runner.is_empty() {
        // The simulator's runners: what they would reject, reject before launching.
        sweep::validate(&runs, &repo)?;
        let exe = std::env::current_exe().map_err(|e| format!("cannot locate the memzip binary: {e}"))?;
        sweep::Runners::of_memzip(&exe, &repo)
    } else {
        sweep::Runners::single(args.runner.clone())
    }
    .with_timeout(args.timeout);
    if let Some(id) = &args.only_run {
        return sweep::run_only(&runs, id, &args.out, &runners);
    }
    if args.adopt {
        let written = sweep::adopt(&runs, &args.out)?;
        eprintln!("memzip sweep: recorded the configuration of {written} finished runs in {}", args.out.display());
        return Ok(());
    }
    if !args.reuse.is_empty() {
        std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
        let lock = sweep::lock_out(&args.out)?;
        let reused = sweep::reuse(&runs, &args.out, &sweep::recorded_runs(&args.reuse)?)?;
        drop(lock);
        for (id, source) in &reused {
            eprintln!("memzip sweep: {id}: reused {}", source.display());
        }
    }
    let outcome = if args.slurm {
        match sweep_on_slurm(&args, &runs, &cwd)? {
            Some(outcome) => outcome,
            None => return Ok(()),
        }
    } else {
        sweep::sweep_reporting(&runs, &args.out, &runners, args.jobs, &Bar::new())?
    };
    println!(
        "{} runs: {} already done, {} succeeded, {} failed{}",
        runs.len(),
        outcome.skipped,
        outcome.succeeded,
        outcome.failed.len(),
        if outcome.failed.is_empty() { String::new() } else { format!(" ({})", outcome.failed.join(", ")) }
    );
    if outcome.failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} runs failed; see {}/<id>.failed/ (a rerun retries them)",
            outcome.failed.len(),
            args.out.display()
        ))
    }
}

/// Submits the missing runs as a job array; the outcome once it finished,
/// or None with --no-wait.
fn sweep_on_slurm(
    args: &SweepArgs,
    runs: &[sweep::PlannedRun],
    cwd: &std::path::Path,
) -> Result<Option<sweep::Outcome>, String> {
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let absolute = |p: &std::path::Path| p.canonicalize().map_err(|e| format!("{}: {e}", p.display()));
    let todo = sweep::pending(runs, &args.out);
    let skipped = runs.len() - todo.len();
    if todo.is_empty() {
        eprintln!("memzip sweep: {} runs, all done: nothing to submit", runs.len());
        return Ok(Some(sweep::Outcome { skipped, ..Default::default() }));
    }
    let task = slurm::TaskCommand {
        memzip: std::env::current_exe().map_err(|e| format!("cannot locate the memzip binary: {e}"))?,
        spec: absolute(&args.spec)?,
        out: absolute(&args.out)?,
        chdir: cwd.to_path_buf(),
        runner: args.runner.clone(),
        gpu: args.gpu.parse()?,
    };
    let options = slurm::SlurmOptions {
        partition: args.partition.clone(),
        time: args.time.clone(),
        sbatch_args: args.sbatch_args.clone(),
        wait: !args.no_wait,
    };
    let submission = slurm::submit(&todo, &task, &options)?;
    eprintln!(
        "memzip sweep: {} runs, {skipped} already done, {} submitted as Slurm job {} ({})",
        runs.len(),
        todo.len(),
        submission.job_id,
        submission.dir.display()
    );
    if !options.wait {
        return Ok(None);
    }
    slurm::wait(&submission.job_id, std::time::Duration::from_secs(2))?;
    let mut outcome = slurm::collect(&submission, &task.out)?;
    outcome.skipped = skipped;
    Ok(Some(outcome))
}

/// `memzip output-error`: compares, records in run.json, prints.
fn run_output_error(args: OutputErrorArgs) -> Result<(), String> {
    let values = args.values.unwrap_or_else(|| args.run.join(bench::output_values::VALUES_FILE));
    let error = memzip_study::output_error::compare_files(&args.exact, &values)?;
    memzip_study::run::RunJson::record_output_error(&args.run, &error, &args.exact.display().to_string())?;
    println!(
        "{}: mean relative error {:.4}% over {} values ({} differ, largest {:.2}%)",
        args.run.display(),
        100.0 * error.mean_relative_error,
        error.values,
        error.differing,
        100.0 * error.max_relative_error
    );
    Ok(())
}

/// `memzip power`: the whole-GPU energy of each run, as JSON.
fn run_power(args: PowerArgs) -> Result<(), String> {
    let summaries = args
        .runs
        .iter()
        .map(|dir| run::load_run(dir).and_then(|run| run::power_summary(&run)))
        .collect::<Result<Vec<_>, _>>()?;
    let text = serde_json::to_string_pretty(&summaries).map_err(|e| format!("power: {e}"))?;
    println!("{text}");
    Ok(())
}

fn run_simulation(args: RunArgs) -> Result<(), String> {
    let gpu: Gpu = args.gpu.parse()?;
    let repo = repo_root()?;
    let options = simulate::SimulateOptions {
        codec: args.codec,
        out: args.out,
        config: args.config,
        sets: args.sets,
        expect: args.expect,
        label: args.label,
        version: args.version,
        gpu,
        power: args.power,
        argv: args.argv,
        env: Vec::new(),
    };
    let record = simulate::simulate(&repo, &options)?;
    let out = std::fs::canonicalize(&options.out).unwrap_or(options.out.clone());
    let wall = record.wall_seconds.unwrap_or_default();
    if record.output_ok == Some(true) {
        eprintln!("    {}: ok in {wall:.2}s ({})", options.codec, out.display());
        return Ok(());
    }
    simulate::failure_lines(&out.join("sim.log")).iter().for_each(|line| eprintln!("{line}"));
    Err(format!(
        "{} failed (exit {}; log {}/sim.log)",
        options.codec,
        record.exit_status.map_or("?".to_string(), |s| s.to_string()),
        out.display()
    ))
}

fn run_bench(args: BenchArgs) -> Result<(), String> {
    let repo = repo_root().map_err(|e| format!("bench: {e}"))?;
    match args.command {
        BenchCommand::List => {
            let status = std::process::Command::new("bash")
                .arg(repo.join("scripts/bench.sh"))
                .arg("list")
                .status()
                .map_err(|e| format!("cannot run bash: {e}"))?;
            status.success().then_some(()).ok_or_else(|| format!("bench list failed ({status})"))
        }
        BenchCommand::Run(run) => bench::run_benchmark(
            &repo,
            &bench::BenchOptions {
                gpu: run.gpu.parse()?,
                benchmark: run.name.or(run.benchmark).unwrap_or_default(),
                codec: run.codec,
                preset: run.preset,
                out: run.out,
                version: run.version,
                e2mc_offline: run.e2mc.is_some(),
                sets: run.sets,
            },
        ),
        BenchCommand::Table(table) => {
            let runs = if table.runs.is_empty() { bench::cached_results() } else { table.runs };
            if runs.is_empty() {
                return Err(format!(
                    "no benchmark runs in {}",
                    bench::cache_root().join("benchmarks/results").display()
                ));
            }
            run_table(TableArgs { runs, csv: table.csv, markdown: table.markdown })
        }
        BenchCommand::Analyze { runs } => {
            for dir in runs {
                let trace = dir.join("trace.zst");
                if !trace.is_file() {
                    return Err(format!("{}: no trace.zst (a none run with -memzip_trace trace.zst)", dir.display()));
                }
                let dir = std::path::absolute(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                bench::analyses::analyze_run(&repo, &dir, &dir.join("trace.zst"))?;
            }
            Ok(())
        }
    }
}

/// A share in [0, 1] (clap value parser).
fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a share between 0 and 1")),
    }
}

fn run_report(args: ReportArgs) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let options = report::ReportOptions {
        memory_bound_utilization: args.memory_bound_util,
        programs: args.programs,
        repo: find_repo(&cwd),
    };
    let report = report::write_report_of(&args.results, &args.output, &options)?;
    for path in &report.files {
        println!("{}", path.display());
    }
    left_out(&report.damaged)
}

/// The sweep's progress on a terminal: a bar, with a line per finished run
/// above it; a log (not a terminal) gets the lines alone.
struct Bar(ProgressBar);

impl Bar {
    fn new() -> Self {
        let bar = ProgressBar::new(0);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} runs  {elapsed} elapsed, ~{eta} left")
        {
            bar.set_style(style);
        }
        Bar(bar)
    }
}

impl sweep::Progress for Bar {
    fn start(&self, runs: usize) {
        self.0.set_length(runs as u64);
    }

    fn finished(&self, line: &str) {
        if self.0.is_hidden() {
            eprintln!("{line}");
        } else {
            self.0.println(line);
        }
        self.0.inc(1);
    }

    fn end(&self) {
        self.0.finish_and_clear();
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Analyze(args) => run_analyze(args),
        Command::E2mcProfile(args) => run_profile(args),
        Command::Table(args) => run_table(args),
        Command::Power(args) => run_power(args),
        Command::Sweep(args) => run_sweep(args),
        Command::Report(args) => run_report(args),
        Command::Run(args) => run_simulation(args),
        Command::Bench(args) => run_bench(args),
        Command::OutputError(args) => run_output_error(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("memzip: error: {message}");
            ExitCode::FAILURE
        }
    }
}
