"""The Python module against the command line: the same scenario gives the same JSON, a sweep's arrays equal its
CSV, errors carry their field. MEMWALL_MEMWALL_EXE names the built command line (absent in a build without Qt:
the comparisons are skipped there, the rest runs)."""
import csv
import io
import json
import os
import subprocess

import pytest

import memwall as mw

EXE = os.environ.get("MEMWALL_MEMWALL_EXE")
needs_cli = pytest.mark.skipif(not EXE, reason="the command line is not built (MEMWALL_GUI=OFF)")


def cli(*args):
    r = subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert r.returncode == 0, r.stderr
    return r.stdout


# Scenarios in both words: the Python keywords and the command line's flags.
SCENARIOS = [
    (dict(model="llama-3-70b", hardware="h100-sxm", tp=8, phase="decode", batch=64, context=4096,
          efficiency="achievable"),
     ["--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", "8", "--phase", "decode", "--batch", "64",
      "--context", "4096", "--efficiency", "achievable"]),
    (dict(model="deepseek-v3", hardware="h200-sxm", tp=8, phase="generate", seq=1024, output=128, batch=16,
          weights="fp8", kv="fp8", activations="fp8"),
     ["--model", "deepseek-v3", "--hardware", "h200-sxm", "--tp", "8", "--phase", "generate", "--seq", "1024",
      "--output", "128", "--batch", "16", "--weights", "fp8", "--kv", "fp8", "--activations", "fp8"]),
    (dict(model="mixtral-8x7b", hardware="a100-80gb-sxm", phase="prefill", seq=2048, batch=2, fused_attention=False,
          compute_efficiency=0.5),
     ["--model", "mixtral-8x7b", "--hardware", "a100-80gb-sxm", "--phase", "prefill", "--seq", "2048", "--batch",
      "2", "--no-fused-attention", "--compute-efficiency", "0.5"]),
]


@needs_cli
@pytest.mark.parametrize("kwargs,flags", SCENARIOS)
def test_analyze_equals_the_command_lines_json(kwargs, flags):
    assert mw.analyze(**kwargs) == json.loads(cli("analyze", *flags, "--json"))


def test_analyze_fields_and_a_hand_count():
    a = mw.analyze(model="llama-2-70b", hardware="h100-sxm", phase="decode", batch=1, context=2048, tp=2)
    # Llama 2 70B: 80 layers, 8 KV heads of 128 at 16 bits: 2 x 80 x 8 x 128 x 2 B = 327,680 B per token.
    assert a["kv_cache"]["bytes_per_token"] == 2 * 80 * 8 * 128 * 2
    assert a["parallelism"]["tp"] == 2
    total = sum(o["time_s"] for o in a["operators"]) + a["parallelism"]["comm_time_s"]
    assert total == pytest.approx(a["totals"]["time_s"], rel=1e-9)


@needs_cli
def test_sweep_arrays_equal_the_csv():
    s = mw.sweep(model="llama-3-70b", hardware="h100-sxm", tp=8, vary={"batch": "1:4096", "context": "1024,8192"})
    rows = list(csv.DictReader(io.StringIO(cli("sweep", "--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp",
                                               "8", "--vary", "batch=1:4096", "--vary", "context=1024,8192",
                                               "--csv"))))
    assert len(rows) == len(s["time_s"]) == 26
    for i, row in enumerate(rows):
        assert int(row["batch"]) == s["batch"][i] and int(row["context"]) == s["context"][i]
        for col in ("time_s", "tokens_per_s", "flops", "bytes", "arithmetic_intensity", "memory_bytes"):
            assert float(row[col]) == s[col][i], (col, i)  # %.17g round-trips a double exactly
        assert row["bound"] == s["bound"][i]
        assert (row["fits"] == "true") == bool(s["fits"][i])


def test_sweep_gives_numpy_arrays_and_marks_errors():
    numpy = pytest.importorskip("numpy")
    s = mw.sweep(model="llama-2-7b", hardware="h100-sxm", vary={"tp": "1,3"})
    assert isinstance(s["time_s"], numpy.ndarray) and s["time_s"].dtype == numpy.float64
    assert list(s["tp"]) == [1, 3]
    # tp 3 does not divide Llama 2 7B's 32 heads: that row has an error and no bound.
    assert 1 in s["error"] and "tp" in s["error"][1]
    assert s["bound"][0] == "memory" and s["bound"][1] == ""


@pytest.mark.parametrize("call,field", [
    (lambda: mw.analyze(batch=0), "batch"),
    (lambda: mw.analyze(batch="many"), "batch"),
    (lambda: mw.analyze(hardware="h100"), "hardware"),
    (lambda: mw.analyze(model="no-such-model"), "model"),
    (lambda: mw.analyze(no_such_option=1), "no_such_option"),
    (lambda: mw.sweep(vary={"heads": "1:4"}), None),
])
def test_errors_are_input_errors_with_their_field(call, field):
    with pytest.raises(mw.InputError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert e.value.field == field
    assert e.value.message and "\n" not in str(e.value)


def test_a_bad_config_names_its_file(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama", "hidden_size": -1}')
    with pytest.raises(mw.InputError) as e:
        mw.load_config(bad)
    assert e.value.file == str(bad)


def test_load_config_counts_like_the_preset():
    here = os.path.dirname(__file__)
    m = mw.load_config(os.path.join(here, "..", "data", "configs", "Llama-2-7b-hf.json"))
    # Llama 2 7B: 6,738,415,616 parameters (the checkpoint's total; tests/core/tst_hfconfig.cpp counts it by hand).
    assert m["params"] == 6738415616
    a = mw.analyze(model_config=os.path.join(here, "..", "data", "configs", "Llama-2-7b-hf.json"))
    assert a["model"]["params"] == 6738415616


def test_scenario_round_trip(tmp_path):
    s = mw.Scenario(model="llama-3-8b", hardware="l40s", batch=8)
    path = tmp_path / "x.memwall.json"
    path.write_text(s.to_json())
    t = mw.Scenario.from_file(path)
    assert t.data == s.data
    assert t.analyze(batch=16)["scenario"]["batch"] == 16
    assert mw.analyze(scenario=str(path))["scenario"]["batch"] == 8


def test_scenario_link_round_trip():
    # A memwall: link (issue #41): the options that differ from the defaults, in the command line's words.
    s = mw.Scenario(model="llama-3-8b", hardware="l40s", batch=8, kv="fp8")
    link = s.to_link()
    assert link == "memwall:?v=1&hardware=l40s&model=llama-3-8b&batch=8&kv=fp8"
    assert mw.Scenario.from_link(link).data == s.data
    assert mw.analyze(scenario=link)["scenario"]["batch"] == 8
    with pytest.raises(mw.InputError) as e:
        mw.Scenario.from_link("memwall:?v=1&batch=0")
    assert e.value.file == "link" and e.value.field == "batch"
    assert str(e.value).startswith("link: batch: must be between 1 and")


@needs_cli
def test_presets_and_validate_equal_the_command_line():
    assert mw.presets() == json.loads(cli("presets", "--json"))
    v = mw.validate()
    assert v == json.loads(cli("validate", "--json"))


@needs_cli
def test_search_equals_the_command_line():
    py = mw.search(model="llama-3-8b", devices=["h100-sxm", "l40s"], max_tpot_ms=50, threads=1)
    c = json.loads(cli("search", "--model", "llama-3-8b", "--devices", "h100-sxm,l40s", "--max-tpot-ms", "50",
                       "--threads", "1", "--json"))
    py.pop("seconds"), c.pop("seconds")
    assert py == c and py["pareto"]


def test_help_lists_the_options_with_ranges_and_defaults():
    doc = mw.analyze.__doc__
    for o in mw.options():
        assert f"{o['key']} = {o['default']}" in doc
    assert "batch = 1" in doc and "1 to" in doc


def test_to_dataframe_and_plot(tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    a = mw.analyze(model="llama-3-8b", hardware="h100-sxm", batch=8)
    df = mw.to_dataframe(a)
    assert list(df["name"]) == [o["name"] for o in a["operators"]]
    ax = mw.plot.roofline(a)
    # The roofline's corner is the ridge point, at the device's peak.
    xs, ys = ax.lines[0].get_data()
    ridge = a["hardware"]["peak_flops"] / a["hardware"]["bandwidth_bytes_per_s"]
    assert xs[1] == pytest.approx(ridge) and ys[1] == pytest.approx(a["hardware"]["peak_flops"])
    ax.figure.savefig(tmp_path / "roofline.png")
    assert (tmp_path / "roofline.png").stat().st_size > 1000


def test_ctrl_c_stops_a_long_sweep_and_search():
    """A sweep of 4 M points and a search of 2 M configurations each run for seconds; SIGINT half a second in
    stops each at once (the search drops what it found: it stops within a job, not after the whole space)."""
    import signal
    import sys
    import time
    for call in ('mw.sweep(vary={"batch": "1:1048576:1", "context": "1,2,3,4"})',
                 'mw.search(threads=1, batches=range(1, 25), speculative_ks=[0, 2, 4], max_configs=10**7)'):
        code = ("import memwall as mw, sys\nprint('start', flush=True)\ntry:\n    " + call +
                "\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True); sys.exit(3)\n")
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=os.environ)
        assert p.stdout.readline().strip() == "start"
        time.sleep(0.5)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 3 and "interrupted" in out, call
        assert time.monotonic() - sent < 2, call
