#include "commands.h"

#include "ui/charts/chartregistry.h"
#include "ui/export/chartexporter.h"
#include "ui/util/presetlibrary.h"
#include "ui/util/savefile.h"

#include "core/analysis/options.h"
#include "core/search/search.h"
#include "core/util/format.h"
#include "core/util/oneline.h"

#include <memwall_version.h>

#include <iostream>

namespace memwall::app {

namespace {

constexpr std::size_t kHelpColumn = 27, kHelpWidth = 110;

/// "  --name VALUE" and its help, wrapped at word boundaries to kHelpWidth columns, continued at kHelpColumn.
std::string helpRow(const std::string &head, std::string_view text)
{
    std::string out = "  " + head;
    std::size_t column = out.size();
    if (column + 1 > kHelpColumn) {
        out += "\n";
        column = 0;
    }
    out += std::string(kHelpColumn - column, ' ');
    column = kHelpColumn;
    bool first = true;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t space = text.find(' ', pos);
        const std::string_view word =
            text.substr(pos, space == std::string_view::npos ? std::string_view::npos : space - pos);
        pos = space == std::string_view::npos ? text.size() : space + 1;
        if (word.empty())
            continue;
        if (!first && column + 1 + word.size() > kHelpWidth) {
            out += "\n" + std::string(kHelpColumn, ' ');
            column = kHelpColumn;
        } else if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        first = false;
    }
    return out + "\n";
}

std::string optionLines(const std::vector<CliOption> &options)
{
    std::string out;
    for (const CliOption &o : options)
        out += helpRow(std::string(o.name) + (o.metavar.empty() ? "" : " " + std::string(o.metavar)), o.help);
    return out;
}

/// The scenario options, from core's table: flag, value, help, accepted values and default.
std::string scenarioOptionLines()
{
    std::string out;
    const core::Scenario defaults;
    const core::WhatIf noScaling;
    for (const core::ScenarioOption &o : core::scenarioOptions()) {
        const std::string flag(o.flag);
        const std::string head = o.kind == core::OptionKind::Switch ? flag + " | --no-" + flag.substr(2)
                                                                    : flag + " " + std::string(o.metavar);
        out += helpRow(head, std::string(o.help) + " [" + core::describeValues(o) + "; default " +
                                 core::optionText(o.get(defaults, noScaling)) + "]");
    }
    return out;
}

std::string sweepSummary()
{
    std::string fields;
    for (auto f : core::sweepableFields())
        fields += (fields.empty() ? "" : ", ") + std::string(f);
    return "Analyses every combination; FROM:TO doubles (batch=1:4096), FROM:TO:STEP steps, A,B,C lists.\n"
           "Fields: " +
           fields + ".";
}

} // namespace

// Long because it is the command table: one row per command (name, summary, help, options, function), in the order of
// --help; splitting it would scatter the one home of the commands' help.
const std::vector<Command> &commands()
{
    static const std::vector<Command> table = {
        {"analyze",
         "[scenario] [--json] [--explain FIELD]",
         "Per-operator FLOPs, bytes, arithmetic intensity and roofline time of one model on one device.\n"
         "--explain prints how one figure was derived, with the scenario's numbers substituted (docs/derivations.md).",
         true,
         {{"--json", "", "machine-readable output"},
          {"--explain", "FIELD",
           "print the derivation of one figure instead of the table: time, tokens_per_s, flops, bytes, intensity, "
           "bound, ridge, kv, kv_per_token, weights, memory (or their --json names: totals.time_s, "
           "kv_cache.total_bytes, model.weight_bytes, memory.total_bytes_per_device, ...), or an operator's "
           "op:NAME:flops|bytes|intensity|time|bound (op:ffn.up:time; in phase generate op:NAME@prefill:... and "
           "op:NAME@decode:...). With --json: {\"field\", \"title\", \"lines\", \"value\", \"value_text\"}"}},
         cmdAnalyze},
        {"sweep",
         "[scenario] --vary FIELD=FROM:TO[:STEP]|A,B,C [--vary ...] [--max-tpot MS] [--json|--csv]",
         sweepSummary(),
         true,
         {{"--vary", "FIELD=SPEC", "a field and its values (repeat for a grid)"},
          {"--max-tpot", "MS", "with --vary batch: the best batch whose time per token stays under MS"},
          {"--json", "", "machine-readable output"},
          {"--csv", "", "comma-separated output"}},
         cmdSweep},
        {"search",
         "[scenario] [--devices gpus|all|ID,ID...] [--max-devices N] [--max-ttft-ms MS] [--max-tpot-ms MS]\n"
         "       [--min-tokens-per-s-per-user X] [--json|--csv]",
         "Finds the best deployments of a model: every device type, tensor/pipeline/expert/data parallelism\n"
         "(powers of two within the device budget), batch per replica, weight precision, KV-cache format and way\n"
         "of serving (chunked prefill, speculative decoding, prefill/decode disaggregation).\n"
         "Configurations that cannot fit are pruned before they are analysed; the rest run on all cores. Each\n"
         "configuration serves requests of --seq prompt tokens and --output generated tokens (phase generate).\n"
         "Prints the Pareto front of those that fit and meet the targets: tokens/s per device against tokens/s per\n"
         "user (1/TPOT), and $/million tokens when every device has an hourly price (presets' usd_per_hour or\n"
         "--usd-per-device-hour). When nothing meets the targets, names the nearest configuration and its miss.\n"
         "Without --devices: the --hardware device when given, else every GPU preset.",
         true,
         {{"--devices", "LIST", "gpus (every GPU preset), all (every preset) or preset ids joined by commas"},
          {"--max-devices", "N", "device budget: tp x pp x ep x dp at most N, 1..4096 (default 64)"},
          {"--max-ttft-ms", "MS", "target: time to first token at most MS"},
          {"--max-tpot-ms", "MS", "target: time per output token at most MS"},
          {"--min-tokens-per-s-per-user", "X", "target: each user gets at least X tokens/s"},
          {"--batches", "SPEC", "batches per replica: FROM:TO doubles, A,B,C lists (default 1:1024)"},
          {"--precisions", "LIST",
           "weight formats, each optionally :ACTIVATIONS (default fp16,fp8,int4/g128; fp8 computes in fp8). The "
           "formats offered, as --weights: " +
               core::weightChoiceList()},
          {"--kv-formats", "LIST", "KV-cache formats (default fp16,fp8)"},
          {"--speculative-ks", "LIST",
           "draft tokens per speculative step to try, at --acceptance with --draft-model (default: 0, and "
           "--speculative-k when given; speculation is only as good as its acceptance rate)"},
          {"--prefill-chunks", "LIST", "chunked-prefill sizes to try, 0 = off (default 0,512, and --chunked-prefill)"},
          {"--disaggregation", "on|off",
           "also try prefill and decode pools of 2, 4, ... copies, best split (default on)"},
          {"--usd-per-device-hour", "X", "one hourly price for every device, in place of the presets' own"},
          {"--threads", "N", "worker threads, 1..64 (default: every core)"},
          {"--max-configs", "N",
           "refuse a space of more than N configurations before searching, 1..100000000 (default " +
               core::formatGrouped(int64_t(core::kDefaultMaxSearchConfigurations)) + ": the largest default space " +
               "holds under 700,000). The search's data takes at most " +
               std::to_string(core::kSearchBytesPerConfiguration) + " bytes per configuration (" +
               std::to_string(core::kDefaultMaxSearchConfigurations * core::kSearchBytesPerConfiguration >> 20) +
               " MiB at the default). On a terminal, stderr shows its progress"},
          {"--json", "",
           "print {\"evaluated\", \"seconds\", \"pareto\": [{scenario fields, \"hardware\", \"devices\", "
           "\"tokens_per_s_per_device\", \"tokens_per_s_per_user\", \"ttft_s\", \"tpot_s\", "
           "\"usd_per_million_tokens\", ...}], ...}"},
          {"--csv", "", "comma-separated front"}},
         cmdSearch},
        {"export",
         "[scenario] --chart NAME --out FILE [--size WxH] [--scale N] [--theme T] [--title TEXT] [--caption TEXT]\n"
         "       memwall export [scenario] --chart all --out DIR [--format png|svg|pdf|csv|json] [...]\n"
         "       memwall export --lesson ID --out FILE.pdf [--questions-only | --answer-key] [--paper P] [--theme T]",
         "Draws one chart of the scenario, exactly as the window does, into a picture or a data file; or a lesson\n"
         "as a PDF deck (one page per step: its chart and text) or a question handout; needs no display.",
         true,
         {{"--chart", "NAME", ui::chartIds().join(", ").toStdString() + "; or all (one file per chart)"},
          {"--out", "FILE",
           "a " + ui::extensionChoices(false).toStdString() + " picture; " + ui::extensionChoices(true).toStdString() +
               " for the data behind the chart; with --chart all: a folder (created if missing)"},
          {"--format", "F", "with --chart all: " + ui::exportFormats().join(", ").toStdString() + " (default png)"},
          {"--size", "WxH", "layout size in pixels, 64..16384 each (default 1600x1000; slides: 1920x1080)"},
          {"--scale", "N", "PNG pixel multiplier 1..4 (default 1): --size 1920x1080 --scale 2 is 3840x2160"},
          {"--theme", "T", "light (default), dark or presentation (large fonts, thick lines)"},
          {"--title", "TEXT",
           "replaces the chart's title (at most " + std::to_string(ui::kMaxExportTextLength) + " characters)"},
          {"--caption", "TEXT",
           "a line under the chart (source, lecture, date; at most " + std::to_string(ui::kMaxExportTextLength) +
               " characters)"},
          {"--lesson", "ID",
           "a built-in lesson as a PDF, one page per step (roofline, decode-and-batch, ...; an unknown id lists "
           "them); the lesson sets its own scenarios"},
          {"--questions-only", "",
           "with --lesson: the handout for the class, three questions a page with the figures each needs and room to "
           "write, no answers"},
          {"--answer-key", "", "with --lesson: the handout's answer key (its questions with their answers)"},
          {"--paper", "P", "with --questions-only or --answer-key: a4 (default) or letter, portrait"}},
         cmdExport},
        {"presets",
         "[--json] [--presets DIR]",
         "Lists the hardware and model presets.",
         false,
         {{"--json", "", "machine-readable output"},
          {"--presets", "DIR", "extra preset folder (overrides built-ins with the same id)"}},
         cmdPresets},
        {"trends",
         "[--json]",
         "The trend data behind Gholami et al., \"AI and Memory Wall\" (IEEE Micro 2024): peak FLOPS, DRAM and\n"
         "interconnect bandwidth of hardware, and parameters and training compute of models, with the growth per\n"
         "two years fitted by ordinary least squares of log10(value) on the decimal year. Beside the paper's fits,\n"
         "the refits of peak FLOPS and DRAM bandwidth with the data-center GPUs and ASICs with HBM that MemWall's\n"
         "presets add after the paper's data.",
         false,
         {{"--json", "",
           "print {\"series\": [{\"id\", \"name\", \"unit\", \"factor_per_2_years\", \"r2\", \"points\": [...], "
           "\"added_points\"?, \"refit\"?}], \"other_series\": [...]} (series without a growth line in the paper go "
           "to other_series; added_points and refit: the devices MemWall adds and the fit with them)"}},
         cmdTrends},
        {"measure",
         "[--json] [--seconds X]",
         "Measures this computer's own roofline with all hardware threads:\n"
         "  memory bandwidth  STREAM-style triad a[i] = b[i] + s*c[i] over 512 MiB of doubles, best repetition,\n"
         "                    counted as 3 x 8 B per element (non-temporal stores on x86-64: no write-allocate)\n"
         "  matrix-vector     y = A x in FP32, intensity ~0.5 FLOP/byte: bandwidth-bound\n"
         "  matrix-matrix     blocked FP32 GEMM, n = 128..1024, intensity n/6 FLOP/byte: compute-bound\n"
         "The peak is the best measured GEMM rate (a measured roof, not the datasheet peak). FLOPs count 2 per\n"
         "multiply-add; bytes are the compulsory memory traffic (matrix-vector: A, x, y once; GEMM: 3 matrices once).\n"
         "Progress goes to stderr. Results vary with what else runs on the machine.",
         false,
         {{"--json", "",
           "print {\"memory_bandwidth_bytes_per_s\", \"peak_flops\", \"points\": [{\"name\", \"arithmetic_intensity\", "
           "\"flops_per_s\", \"flops\", \"bytes\", \"seconds\"}], \"threads\", \"elapsed_s\", \"cancelled\"} (SI "
           "units)"},
          {"--seconds", "X", "time budget of the whole run, 0.5..60 (default 8)"}},
         cmdMeasure},
        {"validate",
         "[--runs FILE | --set NAME] [--json] [--presets DIR]",
         "Holds MemWall's predictions against public measured end-to-end runs (presets/validation/runs.json: "
         "gpt-fast,\n"
         "TensorRT-LLM, vLLM and other published tables, each with its source and settings). Each run is analysed\n"
         "as phase generate on its device and model, with the ideal roofline (a bound: never slower than the run)\n"
         "and with achievable efficiency (a prediction). Prints each run's measured, ideal and achievable figure,\n"
         "the median and worst error, the share within 25 % and the band of measured over achievable time,\n"
         "then the same per metric, model family, device and engine. Runs with max_batched_tokens are served at a\n"
         "steady concurrency through the engine's admission (--max-batched-tokens). Exit status 1 when a run cannot\n"
         "be analysed.",
         false,
         {{"--runs", "FILE", "a validation set of your own, in the same format, in place of the built-in one"},
          {"--set", "NAME",
           "a built-in set other than runs: moe-served (aiconfigurator's measured MoE served runs, build split)"},
          {"--json", "",
           "print {\"runs\": [{\"id\", \"metric\", \"measured\", \"ideal\", \"achievable\", "
           "\"ideal_time_ratio\", \"achievable_time_ratio\", \"source\", ...}], \"summary\": {\"median_error\", "
           "\"worst_error\", \"within_25_percent\", \"ideal_not_slower\", ...}, \"groups\": [{\"by\", \"name\", "
           "\"metric\", \"median_error\", ...}]}"},
          {"--presets", "DIR", "extra preset folder (overrides built-ins with the same id)"}},
         cmdValidate},
    };
    return table;
}

std::shared_ptr<const core::PresetLibrary> loadPresets(const CommandLine &cl)
{
    return ui::loadPresetLibrary(cl.presetsDir ? QString::fromStdString(*cl.presetsDir) : QString());
}

const Command *findCommand(std::string_view name)
{
    for (const Command &c : commands())
        if (c.name == name)
            return &c;
    return nullptr;
}

std::string commandHelp(const Command &c)
{
    std::string out = "usage: memwall " + std::string(c.name) + " " + std::string(c.synopsis) + "\n";
    out += c.summary + "\n\n";
    out += std::string(c.name) + ":\n" + optionLines(c.options);
    out += helpRow("-h, --help", "show this help");
    if (c.scenario) {
        out += "\nscenario source:\n" + optionLines(scenarioSourceOptions());
        out += "\nscenario options (also the keys of a scenario file's \"scenario\" and \"what_if\" objects):\n" +
               scenarioOptionLines();
    }
    return out;
}

std::string usage()
{
    std::string out = "MemWall " MEMWALL_VERSION " — see the AI memory wall\n\nusage:\n"
                      "  memwall [--scenario FILE|LINK]   the desktop application (LINK: a memwall: link)\n";
    for (const Command &c : commands()) {
        std::string synopsis(c.synopsis.substr(0, c.synopsis.find('\n')));
        std::string head = "  memwall " + std::string(c.name);
        head.resize(18, ' ');
        out += head + synopsis + "\n";
    }
    out += "  memwall --version\n\n"
           "`memwall COMMAND --help` describes each command and its options.\n";
    return out;
}

int runCommand(const Command &c, const std::vector<std::string> &args)
{
    const std::string name(c.name);
    return guarded(name, [&] {
        const CommandLine cl = parseCommandLine(name, args, c.options, c.scenario);
        if (cl.help) {
            std::cout << commandHelp(c);
            return 0;
        }
        for (const QString &stray : ui::removeInterruptedWrites())
            std::cerr << "memwall: removed " << core::oneLine(stray.toStdString())
                      << ", left by an interrupted write\n";
        return c.run(cl);
    });
}

} // namespace memwall::app
