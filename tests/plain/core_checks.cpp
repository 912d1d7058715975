// The core's checks that need no Qt, for the build without it (-DMEMWALL_GUI=OFF), where the QtTest suites are not
// built: a plain runner with a few hand counts and published figures from the suites, the scenario assembly the
// command line and Python share, and the JSON writers. It prints one line per check and "N passed, N failed".
#include "core/analysis/analysis.h"
#include "core/analysis/assemble.h"
#include "core/io/outputs.h"
#include "core/io/presets.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace memwall::core;

namespace {

int passed = 0, failed = 0;

void check(const std::string &name, bool ok, const std::string &detail = {})
{
    std::printf("%s %s%s\n", ok ? "ok:  " : "FAIL:", name.c_str(),
                ok || detail.empty() ? "" : (" (" + detail + ")").c_str());
    (ok ? passed : failed) += 1;
}

void near(const std::string &name, double got, double want)
{
    check(name, std::abs(got - want) <= 1e-9 * std::abs(want),
          "got " + std::to_string(got) + ", want " + std::to_string(want));
}

const PresetLibrary &lib()
{
    static const PresetLibrary l = [] {
        PresetLibrary p;
        p.loadBuiltin();
        return p;
    }();
    return l;
}

ScenarioFile scenario(const char *hw, const char *model, std::vector<std::pair<const char *, const char *>> opts)
{
    std::vector<OptionSetting> settings;
    for (const auto &[key, text] : opts)
        settings.push_back(parseSetting(*findOption(key), text));
    return assembleScenario({std::string(hw), std::string(model), {}, {}, {}}, settings, lib());
}

void publishedFigures()
{
    // OPT-13B at FP16: 2 x 40 layers x 5,120 x 2 B = 819,200 B per token (the vLLM paper's "800 KB").
    const ScenarioFile opt = scenario("a100-80gb-sxm", "opt-13b", {});
    const Analysis a = analyze(opt.hardware, opt.model, opt.scenario);
    near("OPT-13B KV cache per token", a.kvCache.bytesPerToken, 2.0 * 40 * 5120 * 2);
    // Llama 2 7B: 6,738,415,616 parameters, the checkpoint's total.
    check("Llama 2 7B parameters", paramCount(scenario("h100-sxm", "llama-2-7b", {}).model).total == 6738415616);
    // Operators and communication add up to the step (the command-line contract).
    const ScenarioFile l = scenario("h100-sxm", "llama-2-70b", {{"tp", "2"}, {"batch", "8"}});
    const Analysis b = analyze(l.hardware, l.model, l.scenario);
    double sum = b.comm.timeS;
    for (const Operator &o : b.operators)
        sum += o.timeS;
    near("operators and communication add up to the step", sum, b.totals.timeS);
}

void moeSplit()
{
    // Mixtral 8x7B decoding 64 sequences at context 1,024: with attention-DP 8 each rank keeps 8 sequences of
    // 131,072 B per token (2 x 32 layers x 8 x 128 x 2 B) for 1,025 tokens.
    const ScenarioFile f =
        scenario("h100-sxm", "mixtral-8x7b", {{"batch", "64"}, {"context", "1024"}, {"attention_dp", "8"}});
    near("attention-DP KV cache per device", analyze(f.hardware, f.model, f.scenario).memory.kv, 131072.0 * 1025 * 8);
}

void assembly()
{
    const ScenarioFile d = assembleScenario({}, {}, lib());
    check("defaults: h100-sxm and llama-2-70b", d.hardware.id == "h100-sxm" && d.model.id == "llama-2-70b");
    try {
        assembleScenario({std::string("h100"), {}, {}, {}, {}}, {}, lib());
        check("an unknown device is refused", false);
    } catch (const RequestError &e) {
        check("an unknown device is refused, naming its field",
              e.field() == "hardware" && std::string(e.what()).find("h100-sxm") != std::string::npos, e.what());
    }
    try {
        parseSetting(*findOption("batch"), "0");
        check("batch 0 is refused", false);
    } catch (const RequestError &e) {
        check("batch 0 is refused, naming its field", e.field() == "batch", e.what());
    }
}

void outputs()
{
    const nlohmann::json p = presetsToJson(lib());
    check("presets JSON lists devices and models with ids", p.at("hardware").size() == lib().hardware().size() &&
                                                                p.at("models").size() == lib().models().size() &&
                                                                p.at("hardware").at(0).at("id").is_string());
    const ScenarioFile f = assembleScenario({}, {}, lib());
    const nlohmann::json a = analyzeOutputJson(f.hardware, f, analyze(f.hardware, f.model, f.scenario), lib());
    check("analyze JSON has the contract's fields",
          a.at("totals").contains("time_s") && a.at("parallelism").contains("attention_dp") &&
              a.at("kv_cache").contains("bytes_per_token") && a.at("operators").is_array());
}

} // namespace

int main()
{
    for (const auto &group : std::vector<std::function<void()>>{publishedFigures, moeSplit, assembly, outputs}) {
        try {
            group();
        } catch (const std::exception &e) {
            check("no exception", false, e.what());
        }
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
