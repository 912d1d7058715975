#include "core/io/scenariolink.h"

#include "core/analysis/assemble.h"
#include "core/io/analysisjson.h"
#include "core/io/jsonreader.h"
#include "core/util/oneline.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace memwall::core {

namespace {

constexpr std::string_view kScheme = "memwall:";
constexpr std::string_view kBase64Url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

[[noreturn]] void linkFail(std::string_view key, std::string_view message)
{
    throw InputError(kLinkOrigin, echoValue(key), message);
}

/// True if `text` starts with "memwall:" in any case (RFC 3986: a scheme is case-insensitive).
bool hasLinkScheme(std::string_view text)
{
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return text.size() >= kScheme.size() &&
           std::equal(kScheme.begin(), kScheme.end(), text.begin(), [&lower](char a, char b) { return a == lower(b); });
}

bool isLinkWhiteSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trimmedLink(std::string_view text)
{
    while (!text.empty() && isLinkWhiteSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isLinkWhiteSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

/// Characters a query value keeps as they are (RFC 3986 unreserved, and '/' and ':' that a query allows): the
/// command line's words (int4/g128, 1:2) stay readable.
bool keptInLink(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~' || c == '/' || c == ':';
}

std::string percentEncode(std::string_view text)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        if (keptInLink(c)) {
            out += c;
        } else {
            const auto b = static_cast<unsigned char>(c);
            out += '%';
            out += kHex[b >> 4];
            out += kHex[b & 0xf];
        }
    }
    return out;
}

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// Decodes %XX; `key` names the part in the error ("" for a key itself). A decoded control character is refused: no
/// value of a scenario holds one.
std::string percentDecode(std::string_view text, std::string_view key)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        const bool whole = i + 2 < text.size();
        const int hi = whole ? hexDigit(text[i + 1]) : -1;
        const int lo = whole ? hexDigit(text[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            linkFail(key, "bad percent-encoding at '" + echoValue(text.substr(i, 3)) + "' in '" + echoValue(text) +
                              "' (write %XX with two hex digits)");
        const auto c = static_cast<char>(hi * 16 + lo);
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            linkFail(key, "'" + echoValue(text) + "' encodes a control character (" + oneLine(std::string(1, c)) + ")");
        out += c;
        i += 2;
    }
    return out;
}

std::string base64UrlEncode(std::string_view bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        uint32_t v = 0;
        for (std::size_t k = 0; k < 3; ++k)
            v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (std::size_t k = 0; k < n + 1; ++k)
            out += kBase64Url[(v >> (18 - 6 * k)) & 0x3f];
    }
    return out; // no '=' padding: the length tells
}

std::string base64UrlDecode(std::string_view text, std::string_view key)
{
    if (text.size() % 4 == 1)
        linkFail(key, "is not base64url: " + std::to_string(text.size()) + " characters cannot be whole bytes");
    std::string out;
    out.reserve(text.size() / 4 * 3 + 2);
    uint32_t v = 0;
    int bits = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto at = kBase64Url.find(text[i]);
        if (at == std::string_view::npos)
            linkFail(key, "is not base64url: character " + std::to_string(i + 1) + " is '" +
                              oneLine(std::string(1, text[i])) + "' (A-Z, a-z, 0-9, '-' and '_' only)");
        v = (v << 6) | static_cast<uint32_t>(at);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((v >> bits) & 0xff);
        }
    }
    return out;
}

/// A number that reads back to the same double (std::to_chars' shortest form): the link must give back the scenario
/// it was made of, bit for bit.
std::string linkValueText(const OptionValue &v)
{
    if (std::holds_alternative<double>(v)) {
        std::array<char, 32> buf{};
        const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), std::get<double>(v));
        return ec == std::errc() ? std::string(buf.data(), end) : optionText(v);
    }
    return optionText(v);
}

/// An RFC 7386 merge patch that turns `from` into `to`: only what differs, objects recursively.
nlohmann::json mergePatchFrom(const nlohmann::json &from, const nlohmann::json &to)
{
    if (!from.is_object() || !to.is_object())
        return to;
    nlohmann::json patch = nlohmann::json::object();
    for (const auto &[key, value] : from.items())
        if (!to.contains(key))
            patch[key] = nullptr;
    for (const auto &[key, value] : to.items()) {
        const auto it = from.find(key);
        if (it == from.end())
            patch[key] = value;
        else if (*it != value)
            patch[key] = mergePatchFrom(*it, value);
    }
    return patch;
}

/// How a custom device or model is inlined: the preset it differs least from (its id, or empty for none) and the
/// text of the merge patch from that preset's object to its own (or of its whole object when there is no preset).
/// A device's object is some 70 kB (its measured efficiency curves), so a device edited from a preset travels as the
/// few fields that changed. A patch that cannot say the object (a null value, which a merge patch reads as "remove")
/// is not used.
template <typename Preset, typename ToJson>
std::pair<std::string, std::string> inlineText(const nlohmann::json &own, const std::vector<Preset> &presets,
                                               ToJson toObject)
{
    std::pair<std::string, std::string> best{std::string(), own.dump()};
    for (const Preset &p : presets) {
        nlohmann::json base = toObject(p);
        const nlohmann::json patch = mergePatchFrom(base, own);
        std::string text = patch.dump();
        if (text.size() >= best.second.size())
            continue;
        std::string id = base.value("id", std::string());
        base.merge_patch(patch);
        if (base == own && !id.empty())
            best = {std::move(id), std::move(text)};
    }
    return best;
}

/// The scenario a fresh `memwall analyze` builds for this model, which a link's options are written against.
ScenarioFile linkDefaults(const ModelShape &model)
{
    ScenarioFile base;
    base.model = model;
    adaptToModel(base.scenario, base.model);
    return base;
}

/// The link's query split into decoded (key, value) pairs in their order, each key once. Fails on the first fault.
std::vector<std::pair<std::string, std::string>> linkPairs(std::string_view link)
{
    if (link.size() > kMaxLinkBytes)
        linkFail("", std::to_string(link.size()) + " bytes, more than the " + std::to_string(kMaxLinkBytes) +
                         " bytes a link may hold");
    if (!hasLinkScheme(link))
        linkFail("", "'" + echoValue(link) + "' is not a memwall: link");
    for (std::size_t i = 0; i < link.size(); ++i) {
        const auto c = static_cast<unsigned char>(link[i]);
        if (c < 0x21 || c > 0x7e)
            linkFail("", "character " + std::to_string(i + 1) + " is '" + oneLine(link.substr(i, 1)) +
                             "': a link holds printable ASCII only (anything else percent-encoded)");
    }
    std::string_view rest = link.substr(kScheme.size());
    for (int slashes = 0; slashes < 3 && rest.starts_with('/'); ++slashes) // memwall:///?... as some launchers write
        rest.remove_prefix(1);
    if (const auto hash = rest.find('#'); hash != std::string_view::npos)
        linkFail("", "'" + echoValue(rest.substr(hash)) + "': a scenario link has no fragment ('#')");
    if (!rest.empty() && !rest.starts_with('?'))
        linkFail("", "expected '?' after memwall:, got '" + echoValue(rest) + "'");
    if (!rest.empty())
        rest.remove_prefix(1);
    std::vector<std::pair<std::string, std::string>> pairs;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const std::string_view part = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (part.empty())
            continue; // "a=1&&b=2", a trailing '&'
        const auto eq = part.find('=');
        const std::string key = percentDecode(part.substr(0, eq), part.substr(0, eq));
        if (eq == std::string_view::npos)
            linkFail(key, "has no value (write " + echoValue(key) + "=VALUE)");
        if (std::any_of(pairs.begin(), pairs.end(), [&key](const auto &p) { return p.first == key; }))
            linkFail(key, "given twice");
        pairs.emplace_back(key, percentDecode(part.substr(eq + 1), key));
    }
    return pairs;
}

/// An inline device or model: base64url of the scenario file's object, read by the preset readers.
nlohmann::json inlineObject(const std::string &key, const std::string &value)
{
    const std::string origin = std::string(kLinkOrigin) + ": " + key;
    return parseJson(base64UrlDecode(value, key), origin);
}

} // namespace

bool isScenarioLink(std::string_view text) { return hasLinkScheme(trimmedLink(text)); }

std::string linkKey(const ScenarioOption &o)
{
    return o.section == OptionSection::WhatIf ? "what_if." + std::string(o.key) : std::string(o.key);
}

std::string scenarioLink(const ScenarioFile &f, const PresetLibrary &lib)
{
    std::string link = std::string(kScheme) + "?v=" + std::to_string(kLinkVersion);
    const auto add = [&link](std::string_view key, std::string_view value) {
        link += '&';
        link += key;
        link += '=';
        link += percentEncode(value);
    };
    // A custom device or model: `hardware=BASE&hardware_json=PATCH`, or `hardware_json=OBJECT` alone.
    const auto addInline = [&add](std::string_view key, const std::pair<std::string, std::string> &text) {
        if (!text.first.empty())
            add(key, text.first);
        add(std::string(key) + "_json", base64UrlEncode(text.second));
    };
    if (f.hardwareInline)
        addInline("hardware",
                  inlineText(toJson(f.hardware), lib.hardware(), [](const HardwareSpec &h) { return toJson(h); }));
    else
        add("hardware", f.hardware.id);
    if (f.modelInline)
        addInline("model",
                  inlineText(toJson(f.model), lib.models(), [](const ModelPreset &m) { return toJson(m.shape); }));
    else
        add("model", f.model.id);
    const ScenarioFile base = linkDefaults(f.model);
    for (const ScenarioOption &o : scenarioOptions()) {
        const OptionValue v = o.get(f.scenario, f.whatIf);
        if (v != o.get(base.scenario, base.whatIf))
            add(linkKey(o), linkValueText(v));
    }
    if (link.size() > kMaxLinkBytes)
        throw InputError(kLinkOrigin, "",
                         "not written: " + std::to_string(link.size()) + " bytes, more than the " +
                             std::to_string(kMaxLinkBytes) + " bytes a link may hold (save a scenario file instead)");
    return link;
}

ScenarioFile scenarioFromLink(std::string_view text, const PresetLibrary &lib)
{
    const auto pairs = linkPairs(trimmedLink(text));
    std::optional<std::string> hardwareId, modelId, hardwareJson, modelJson;
    std::vector<std::pair<std::size_t, OptionSetting>> settings; // with the option's row in the table
    const auto &table = scenarioOptions();
    for (const auto &pair : pairs) {
        const std::string &key = pair.first, &value = pair.second; // named: clang 14 cannot capture a binding
        if (key == "v") {
            int64_t version = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), version);
            if (ec != std::errc() || end != value.data() + value.size() || version < 1)
                linkFail(key, "'" + echoValue(value) + "' is not a link version (this MemWall writes " +
                                  std::to_string(kLinkVersion) + ")");
            if (version > kLinkVersion)
                linkFail(key, "version " + std::to_string(version) +
                                  " was written by a newer MemWall (this one reads " + std::to_string(kLinkVersion) +
                                  ")");
        } else if (key == "hardware") {
            hardwareId = value;
        } else if (key == "model") {
            modelId = value;
        } else if (key == "hardware_json") {
            hardwareJson = value;
        } else if (key == "model_json") {
            modelJson = value;
        } else {
            const auto row =
                std::find_if(table.begin(), table.end(), [&key](const auto &o) { return linkKey(o) == key; });
            if (row == table.end())
                linkFail(key, "unknown key (a link takes v, hardware, hardware_json, model, model_json and the "
                              "scenario-file keys, those of what_if as what_if.KEY)");
            try {
                settings.emplace_back(static_cast<std::size_t>(row - table.begin()), parseSetting(*row, value));
            } catch (const RequestError &e) {
                linkFail(key, e.what());
            }
        }
    }
    // A preset by id; with an inline object beside it, the object is a merge patch onto that preset's.
    const HardwareSpec *hw = lib.findHardware(hardwareId.value_or(kDefaultHardware));
    if (!hw && (hardwareId || !hardwareJson))
        linkFail("hardware", unknownPresetMessage(lib, true, hardwareId.value_or(kDefaultHardware)));
    const ModelPreset *preset = lib.findModel(modelId.value_or(kDefaultModel));
    if (!preset && (modelId || !modelJson))
        linkFail("model", unknownPresetMessage(lib, false, modelId.value_or(kDefaultModel)));
    ScenarioFile f;
    if (hardwareJson) {
        nlohmann::json object = inlineObject("hardware_json", *hardwareJson);
        if (hardwareId) {
            nlohmann::json base = toJson(*hw);
            base.merge_patch(object);
            object = std::move(base);
        }
        f.hardware = hardwareFromJson(object, std::string(kLinkOrigin) + ": hardware_json");
        f.hardwareInline = true;
    } else {
        f.hardware = *hw;
    }
    if (modelJson) {
        nlohmann::json object = inlineObject("model_json", *modelJson);
        if (modelId) {
            nlohmann::json base = toJson(preset->shape);
            base.merge_patch(object);
            object = std::move(base);
        }
        f.model = modelShapeFromJson(object, std::string(kLinkOrigin) + ": model_json");
        f.modelInline = true;
    } else {
        f.model = preset->shape;
    }
    // In the table's order, whatever the link's: the result does not depend on how a hand-written link is ordered.
    std::stable_sort(settings.begin(), settings.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<OptionSetting> ordered;
    ordered.reserve(settings.size());
    for (auto &s : settings)
        ordered.push_back(std::move(s.second));
    try {
        applySettings(f, ordered, false);
    } catch (const RequestError &e) {
        linkFail(e.field(), e.what());
    }
    return f;
}

} // namespace memwall::core
