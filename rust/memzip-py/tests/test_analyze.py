"""`memzip.analyze` and `memzip.load_runs` equal the CLI's `analyze --json`
and `table --csv`, with the right exceptions for bad input."""

import csv
import io
import json
import math
import shutil
from pathlib import Path

import pytest

import memzip
from conftest import REPO, SAMPLE_BLOCKS, cli_error

RUNS = REPO / "rust" / "memzip-cli" / "tests" / "fixtures" / "runs"
CODECS = "bdi,mag_bdi:bases=8+4+2,adaptive:lambda=6,candidates=fpc/bdi,e2mc16:pdw=4,mfv=512"


def test_analyze_frame_equals_the_cli_json(cli, trace_path):
    pandas = pytest.importorskip("pandas")
    code, out, err = cli(
        "analyze", trace_path, "--codecs", CODECS, "--json", "-", "--no-shannon",
        "--e2mc-sample-blocks", SAMPLE_BLOCKS, "--verify",
    )
    assert code == 0, err
    import json

    expected = json.loads(out)["traces"][0]
    frame = memzip.analyze(trace_path, codecs=CODECS, sample_blocks=SAMPLE_BLOCKS, verify=True)
    assert isinstance(frame, pandas.DataFrame)
    assert frame["codec"].tolist() == [
        "bdi", "mag_bdi:bases=8+4+2", "adaptive:lambda=6,candidates=fpc/bdi", "e2mc16:pdw=4,mfv=512",
    ]
    for row, result in zip(frame.to_dict("records"), expected["codecs"]):
        assert row["trace"] == str(trace_path) and row["mag"] == 32
        assert row["records_write"] == expected["records"]["write"]
        for key, value in result.items():
            assert row[key] == value or (value is None and row[key] is None), key
        assert row["verified_blocks"] == expected["blocks"]
    # The same list as separate specs, and the raw report.
    specs = ["bdi", "mag_bdi:bases=8+4+2", "adaptive:lambda=6,candidates=fpc/bdi", "e2mc16:pdw=4,mfv=512"]
    rows = memzip.analyze([trace_path], codecs=specs, sample_blocks=SAMPLE_BLOCKS, as_frame=False)
    assert [r["compressed_bits"] for r in rows] == frame["compressed_bits"].tolist()
    report = memzip.analyze_report(trace_path, codecs="bdi", shannon_bits=[8])
    shannon = report["traces"][0]["shannon"]
    assert [b["symbol_bits"] for b in shannon] == [8] and shannon[0]["entropy_bits"] > 0


def test_analyze_default_is_every_codec(trace_path):
    rows = memzip.analyze(trace_path, as_frame=False)
    assert [r["codec"] for r in rows] == memzip.codec_names()


def test_analyze_bad_options_raise_value_error(cli, trace_path):
    for codecs in ["zip", "bdi:oops"]:
        with pytest.raises(ValueError) as raised:
            memzip.analyze(trace_path, codecs=codecs)
        assert str(raised.value) == cli_error(cli("analyze", trace_path, "--codecs", codecs, "--no-shannon"))
    with pytest.raises(ValueError) as raised:
        memzip.analyze(trace_path, codecs="bdi", mag_bytes=48)
    assert str(raised.value) == cli_error(cli("analyze", trace_path, "--codecs", "bdi", "--mag-bytes", 48, "--no-shannon"))
    with pytest.raises(ValueError, match="nothing to analyse"):
        memzip.analyze(trace_path, codecs=[])
    with pytest.raises(ValueError):
        memzip.analyze_report(trace_path, codecs="bdi", shannon_bits=[5])


def csv_value(text):
    if text == "":
        return None
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return float(text)


def test_load_runs_equals_the_cli_table(cli):
    dirs = sorted(str(p) for p in RUNS.iterdir())
    code, out, err = cli("table", "--csv", *dirs)
    assert code == 0, err
    expected = list(csv.DictReader(io.StringIO(out)))
    rows = memzip.load_runs(RUNS, as_frame=False)
    assert len(rows) == len(expected) == 6
    for row, want in zip(rows, expected):
        for key, text in want.items():
            got = row[key]
            if key in ("program", "run", "dir"):
                assert (got or "") == text, key
                continue
            value = csv_value(text)
            if isinstance(value, float):
                assert math.isclose(got, value), key
            else:
                assert got == value, key


def test_load_runs_frame_and_single_directories():
    pandas = pytest.importorskip("pandas")
    frame = memzip.load_runs(RUNS)
    assert isinstance(frame, pandas.DataFrame)
    vecadd = frame[frame["program"] == "vecadd"].set_index("stats_codec")
    assert vecadd.loc["none", "speedup"] == 1.0
    assert vecadd.loc["bdi", "speedup"] > 1.0
    one = memzip.load_runs([RUNS / "vecadd-none", RUNS / "vecadd-bdi"], as_frame=False)
    assert [r["run"] for r in one] == ["none", "bdi"]
    # The fixture's BDI run wrote 1,024 blocks at 64 B and 1,024 it stored whole.
    assert [r["stored_sizes"] for r in one] == [{128: 2048}, {64: 1024, 128: 1024}]


def test_load_runs_carry_the_simulator_build(tmp_path):
    run = tmp_path / "vecadd-bdi"
    shutil.copytree(RUNS / "vecadd-bdi", run)
    record = json.loads((run / "run.json").read_text())
    record["simulator_sources"] = "57b825381b737880"
    (run / "run.json").write_text(json.dumps(record))
    rows = memzip.load_runs([RUNS / "vecadd-none", run], as_frame=False)
    assert [r["simulator_sources"] for r in rows] == [None, "57b825381b737880"]


def test_load_runs_name_the_model_change_a_sweep_run_missed(tmp_path):
    # A dev GTX580 codec run whose stats lack the channel-key fix's counter (the fixture's) missed that fix.
    run = tmp_path / "vecadd-bdi"
    shutil.copytree(RUNS / "vecadd-bdi", run)
    record = {"id": "vecadd-bdi", "codec": "bdi", "options": [], "simulator": "dev", "timing_model": 2}
    (run / "sweep.json").write_text(json.dumps(record))
    rows = memzip.load_runs([RUNS / "vecadd-none", run], as_frame=False)
    assert rows[0]["model_change"] is None  # no sweep record says what it ran
    assert "channel-key fix" in rows[1]["model_change"]
    stats = json.loads((run / "stats.json").read_text())
    counters = ("reads", "compressed_reads", "overfetch_bursts", "writes", "rmw_reads", "rmw_read_bursts",
                "rmw_read_bytes", "raw_fallbacks", "filled_sectors")
    stats["total"]["partial"] = dict.fromkeys(counters, 0)
    (run / "stats.json").write_text(json.dumps(stats))
    assert memzip.load_runs([run], as_frame=False)[0]["model_change"] is None


def test_load_runs_carry_the_gpu_and_compare_within_it(tmp_path):
    # vecadd on the QV100: the fixture's bdi stats, its none run twice their cycles.
    for name in ("vecadd-none", "vecadd-bdi"):
        run = tmp_path / f"{name}-qv100"
        shutil.copytree(RUNS / name, run)
        record = json.loads((run / "run.json").read_text())
        record["gpu"] = "qv100"
        (run / "run.json").write_text(json.dumps(record))
    bdi = memzip.load_runs(RUNS / "vecadd-bdi", as_frame=False)[0]
    none = tmp_path / "vecadd-none-qv100"
    (none / "sim.log").unlink()
    record = json.loads((none / "run.json").read_text())
    record["cycles"] = 2 * bdi["cycles"]
    (none / "run.json").write_text(json.dumps(record))
    rows = memzip.load_runs([RUNS / "vecadd-none", RUNS / "vecadd-bdi", none, tmp_path / "vecadd-bdi-qv100"],
                            as_frame=False)
    assert [r["gpu"] for r in rows] == ["gtx580", "gtx580", "qv100", "qv100"]
    assert rows[1]["speedup"] == 1.25, "the fixture's, against the GTX580's none run"
    assert rows[3]["speedup"] == 2.0, "against the QV100's none run"
    assert rows[3]["overfetch_bursts"] is None, "the fixture's stats predate total.partial"
    record["gpu"] = "h100"
    (none / "run.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match="field `gpu` is not a GPU"):
        memzip.load_runs(none)


def test_load_runs_class_programs_memory_bound_as_the_reports_do(tmp_path, monkeypatch):
    # The manifests of the checkout (MEMZIP_ROOT) class the benchmarks; a
    # program without one is classed by its own none run (the fixture's
    # vecadd keeps the bus busy in less than 0.40 of DRAM cycles).
    monkeypatch.setenv("MEMZIP_ROOT", str(REPO))
    dirs = []
    for program, gpu in (("parboil/lbm study", "qv100"), ("rodinia/hotspot study", "gtx580"),
                         ("rodinia/pathfinder study", "gtx580"), ("rodinia/pathfinder study", "qv100")):
        run = tmp_path / f"{program.split()[0].replace('/', '-')}-{gpu}-none"
        shutil.copytree(RUNS / "vecadd-none", run)
        record = json.loads((run / "run.json").read_text())
        record.update(program=program, gpu=gpu)
        (run / "run.json").write_text(json.dumps(record))
        dirs.append(run)
    rows = memzip.load_runs(dirs + [RUNS / "vecadd-none"], as_frame=False)
    classes = {(r["program"], r["gpu"]): r["memory_bound"] for r in rows}
    assert classes == {
        ("parboil/lbm study", "qv100"): True,  # BOUND_QV100="memory 0.70"
        ("rodinia/hotspot study", "gtx580"): False,  # BOUND="compute 0.11"
        ("rodinia/pathfinder study", "gtx580"): False,  # compute on the GTX580,
        ("rodinia/pathfinder study", "qv100"): True,  # memory-bound on the QV100
        ("vecadd", "gtx580"): rows[-1]["dram_utilization"] >= 0.4,
    }


def test_load_runs_carry_the_partial_request_counters(tmp_path):
    run = tmp_path / "vecadd-bdi"
    shutil.copytree(RUNS / "vecadd-bdi", run)
    stats = json.loads((run / "stats.json").read_text())
    counters = {"reads": 10, "compressed_reads": 6, "overfetch_bursts": 7, "writes": 4, "rmw_reads": 3,
                "rmw_read_bursts": 9, "rmw_read_bytes": 288, "raw_fallbacks": 1, "refetches": 2,
                "refetch_bursts": 5, "merged_reads": 11, "filled_sectors": 12}
    stats["total"]["partial"] = counters
    (run / "stats.json").write_text(json.dumps(stats))
    row = memzip.load_runs(run, as_frame=False)[0]
    columns = {"reads": "partial_reads", "compressed_reads": "partial_compressed_reads", "writes": "partial_writes"}
    assert {columns.get(k, k): row[columns.get(k, k)] for k in counters} == {
        columns.get(k, k): v for k, v in counters.items()}


def test_load_runs_bad_input(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        memzip.load_runs(tmp_path / "missing")
    with pytest.raises(ValueError, match="no run directories"):
        memzip.load_runs(tmp_path)
    run = tmp_path / "broken"
    run.mkdir()
    (run / "stats.json").write_text("{ not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        memzip.load_runs(run)


def test_without_pandas_the_tables_are_dicts(monkeypatch, trace_path):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # `import pandas` raises ImportError
    rows = memzip.load_runs(RUNS)
    assert isinstance(rows, list) and isinstance(rows[0], dict) and len(rows) == 6
    rows = memzip.analyze(trace_path, codecs="bdi")
    assert isinstance(rows, list) and rows[0]["codec"] == "bdi"


MGPU_RUNS = REPO / "rust" / "memzip-study" / "tests" / "fixtures" / "mgpu"


def test_load_runs_reads_multi_gpu_runs(cli):
    """memzip-mgpu's run directories: fabric bytes where DRAM runs have DRAM bytes."""
    dirs = [MGPU_RUNS / "fir-none", MGPU_RUNS / "fir-bdi"]
    rows = memzip.load_runs(dirs, as_frame=False)
    assert [r["medium"] for r in rows] == ["fabric", "fabric"]
    code, out, err = cli("table", "--csv", *map(str, dirs))
    assert code == 0, err
    expected = list(csv.DictReader(io.StringIO(out)))
    for row, want in zip(rows, expected):
        assert want["medium"] == "fabric"
        assert row["dram_bytes"] == int(want["dram_bytes"])
        assert math.isclose(row["speedup"], float(want["speedup"]))
    assert rows[1]["speedup"] > 1.0 and rows[1]["dram_percent_of_none"] < 100.0


def test_element_format_adds_the_cli_bounds(cli, trace_path):
    code, out, err = cli("analyze", trace_path, "--codecs", "none", "--json", "-", "--no-shannon",
                         "--element-format", "bf16")
    assert code == 0, err
    expected = json.loads(out)["traces"][0]["float_bounds"]
    report = memzip.analyze_report(trace_path, codecs="none", element_format="bf16")
    bounds = report["traces"][0]["float_bounds"]
    assert bounds == expected
    assert bounds["format"] == "bf16" and bounds["exponent"]["exponent_bits"] == 8
    assert "float_bounds" not in memzip.analyze_report(trace_path, codecs="none")["traces"][0]
    with pytest.raises(ValueError, match="'fp64'"):
        memzip.analyze_report(trace_path, codecs="none", element_format="fp64")
