"""MemWall: see the AI memory wall from Python.

The same model as the ``memwall`` command line and window: every function builds its scenario from the same option
table, presets and errors, and returns the same fields as ``memwall analyze|sweep|search|validate|presets --json``.

    import memwall as mw
    a = mw.analyze(model="llama-3-70b", hardware="h100-sxm", tp=8, phase="decode", batch=64, context=4096,
                   efficiency="achievable")
    a["totals"]["time_s"]; a["operators"][0]["flops"]
    s = mw.sweep(model="llama-3-70b", hardware="h100-sxm", tp=8, vary={"batch": "1:4096"})
    s["time_s"]                       # numpy arrays, one per column

Keyword names are the scenario options' keys (``memwall.options()`` lists them, with their ranges and defaults;
``help(memwall.analyze)`` too). Bad input raises ``memwall.InputError`` (a ``ValueError``) with ``file``, ``field``
and ``message``.
"""

from . import _memwall

InputError = _memwall.InputError

__all__ = ["analyze", "sweep", "search", "validate", "presets", "options", "Scenario", "load_config",
           "InputError", "to_dataframe", "plot"]

# Where the device, the model and the presets come from; every other keyword is a scenario option.
_SOURCE_KEYS = ("hardware", "model", "model_config", "presets")


def _text(key, value):
    """A Python value as the command line's words for option `key`."""
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return repr(value) if isinstance(value, float) else str(value)
    raise InputError(f"{key}: expected a number, a name or a bool, got {type(value).__name__}")


def _split(kwargs, scenario=None):
    source = {k: kwargs.pop(k) for k in _SOURCE_KEYS if k in kwargs}
    if scenario is not None:
        if isinstance(scenario, Scenario):
            source["scenario_json"] = scenario.to_json()
        else:
            source["scenario_file"] = str(scenario)
    options = [(key, _text(key, value)) for key, value in kwargs.items()]
    return source, options


def analyze(scenario=None, **kwargs):
    """One analysis: the fields of ``memwall analyze --json`` as a dict.

    ``scenario`` is a saved ``.memwall.json`` path or a ``Scenario``; ``hardware``, ``model`` (preset ids) or
    ``model_config`` (a Hugging Face config.json) and ``presets`` (an extra preset folder) say where the device and
    model come from; every other keyword is a scenario option (below)."""
    source, options = _split(dict(kwargs), scenario)
    return _memwall.analyze(source, options)


def sweep(vary, scenario=None, **kwargs):
    """A grid of analyses: ``vary`` maps a whole-number option to its values, as ``memwall sweep --vary``
    ("1:4096" powers of two, "128:8192:128" steps, "1,2,4" a list); the first varies slowest.

    Returns one column per field, as ``memwall sweep --csv`` has them: the varied fields, ``time_s``,
    ``tokens_per_s``, ``flops``, ``bytes``, ``arithmetic_intensity``, ``bound``, ``memory_bytes``, ``fits``, and
    ``error`` ({row: message} for the points that cannot be analysed). Columns are numpy arrays when numpy is
    installed, else lists. Ctrl+C stops a long sweep."""
    if isinstance(vary, dict):
        vary = [f"{field}={spec}" for field, spec in vary.items()]
    source, options = _split(dict(kwargs), scenario)
    out = _memwall.sweep(source, options, list(vary))
    bounds = _memwall.bounds()
    try:
        import numpy
    except ImportError:
        numpy = None
    codes = out["bound"]
    if numpy is not None:
        names = numpy.array(bounds + [""])
        out["bound"] = names[numpy.asarray(codes).astype(numpy.int64)]  # -1 (an error) picks ""
    else:
        out = {k: (list(v) if k != "error" else v) for k, v in out.items()}
        out["bound"] = [bounds[c] if c >= 0 else "" for c in codes]
    return out


def search(devices=None, max_ttft_ms=None, max_tpot_ms=None, min_tokens_per_s_per_user=None, max_devices=64,
           threads=0, batches=None, precisions=None, kv_formats=None, speculative_ks=None, prefill_chunks=None,
           disaggregate=True, max_configs=None, scenario=None, **kwargs):
    """The design-space search of ``memwall search --json``: every fitting configuration of ``devices`` (preset ids;
    default every GPU preset) up to ``max_devices``, and the Pareto front under the targets (milliseconds and
    tokens/s, as the command line's --max-ttft-ms ...). The lists are the command line's: ``batches`` (per replica),
    ``precisions`` ("fp16", "int4/g128:fp8", ...), ``kv_formats``, ``speculative_ks``, ``prefill_chunks``.
    A space of more than ``max_configs`` configurations (default 1,000,000, as ``--max-configs``) is refused before
    anything is analysed. Ctrl+C stops it."""
    args = _memwall.SearchArgs()
    args.devices = [devices] if isinstance(devices, str) else list(devices or [])
    args.max_devices, args.threads = int(max_devices), int(threads)
    ms = lambda v: 0.0 if v is None else float(v) / 1000.0
    args.max_ttft_s, args.max_tpot_s = ms(max_ttft_ms), ms(max_tpot_ms)
    args.min_tokens_per_s_per_user = float(min_tokens_per_s_per_user or 0.0)
    args.batches = [int(b) for b in batches or []]
    args.precisions = [str(p) for p in precisions or []]
    args.kv_formats = [str(k) for k in kv_formats or []]
    args.speculative_ks = [int(k) for k in speculative_ks or []]
    args.prefill_chunks = [int(c) for c in prefill_chunks or []]
    args.disaggregate = bool(disaggregate)
    if max_configs is not None:
        args.max_configs = int(max_configs)
    source, options = _split(dict(kwargs), scenario)
    return _memwall.search(source, options, args)


def validate(runs=None, presets=None):
    """``memwall validate --json``: the project's measured runs (or a runs file) against its predictions."""
    return _memwall.validate(str(runs or ""), str(presets or ""))


def presets(presets=None):
    """``memwall presets --json``: {"hardware": [...], "models": [...]}, the built-ins plus an extra folder."""
    return _memwall.presets(str(presets or ""))


def options():
    """The scenario options: key (the keyword), flag, kind, accepted values, default, help."""
    return _memwall.options()


def load_config(path):
    """A Hugging Face config.json as MemWall reads it: the model's shape and its parameter counts."""
    return _memwall.load_config(str(path))


class Scenario:
    """A whole scenario (device, model, options), as a ``.memwall.json`` holds it.

    ``Scenario.from_file(path)`` reads one, ``Scenario.from_link("memwall:?...")`` a link; ``Scenario(model=...,
    batch=...)`` builds one; ``s.analyze(**changes)`` analyses it with changes; ``s.to_json()`` is the file's text,
    ``s.to_link()`` its ``memwall:`` link."""

    def __init__(self, _data=None, **kwargs):
        if _data is None:
            source, options = _split(dict(kwargs))
            _data = _memwall.scenario_json(source, options)
        self._data = _data

    @classmethod
    def from_file(cls, path, presets=None):
        return cls(_memwall.read_scenario(str(path), str(presets or "")))

    @classmethod
    def from_link(cls, link, presets=None):
        """The scenario of a ``memwall:`` link (the window's Edit > Copy link); a bad link raises InputError."""
        return cls(_memwall.read_link(str(link), str(presets or "")))

    def to_link(self, presets=None):
        """The scenario as a ``memwall:`` link, which the window and ``memwall analyze --scenario`` open."""
        import json
        return _memwall.scenario_link(json.dumps(self._data), str(presets or ""))

    @property
    def data(self):
        """The scenario file's content as a dict."""
        return self._data

    def to_json(self):
        import json
        return json.dumps(self._data)

    def analyze(self, **changes):
        return analyze(scenario=self, **changes)

    def __repr__(self):
        hw, model = self._data.get("hardware"), self._data.get("model")
        hw = hw if isinstance(hw, str) else (hw or {}).get("id")
        model = model if isinstance(model, str) else (model or {}).get("id")
        return f"memwall.Scenario(hardware={hw!r}, model={model!r})"


def to_dataframe(result):
    """A result as a pandas DataFrame: an analysis's operators, a sweep's columns, a search's Pareto front, a
    validation's runs, or the presets' models."""
    import pandas
    if isinstance(result, dict) and "operators" in result:
        return pandas.DataFrame(result["operators"])
    if isinstance(result, dict) and "time_s" in result and "bound" in result:
        return pandas.DataFrame({k: v for k, v in result.items() if k != "error"})
    for key in ("pareto", "runs", "models"):
        if isinstance(result, dict) and key in result:
            return pandas.DataFrame(result[key])
    raise InputError("to_dataframe: expected the result of analyze, sweep, search, validate or presets")


def _option_doc():
    lines = ["", "Scenario options (keyword = default; accepted values):"]
    for o in _memwall.options():
        lines.append(f"    {o['key']} = {o['default']}   ({o['values']})")
        lines.append(f"        {o['help']}")
    return "\n".join(lines)


_OPTIONS_DOC = _option_doc()
for _f in (analyze, sweep, search):
    _f.__doc__ = (_f.__doc__ or "") + "\n" + _OPTIONS_DOC
Scenario.__doc__ += "\n" + _OPTIONS_DOC

from . import plot  # noqa: E402  (plot uses the functions above)
