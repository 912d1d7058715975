#pragma once

#include "core/analysis/options.h"
#include "core/io/presets.h"
#include "core/io/scenariofile.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace memwall::core {

/// A scenario as a `memwall:` link, to paste in a chat or open from a browser (issue #41):
///
///     memwall:?v=1&hardware=h100-sxm&model=llama-3-70b&batch=8&tp=2&what_if.bandwidth=2
///
/// The query holds the device and the model (preset ids) and every option of the option table
/// (core/analysis/options.cpp) whose value differs from the scenario a fresh `memwall analyze` builds for that
/// device and model: Scenario{} with what the model implies (adaptToModel()). Options are keyed as in a scenario
/// file; those of its "what_if" object as `what_if.KEY`. Values are the command line's words (8, int4/g128, on,
/// auto), percent-encoded where a character is not allowed in a query. A custom or imported device or model is
/// inlined as compact JSON in base64url (`hardware_json`, `model_json`) in the scenario file's form (the preset
/// readers and writers): beside `hardware=ID` it is an RFC 7386 merge patch onto that preset's object (the few fields
/// an edited device changes, where its whole object, with the measured efficiency curves, takes some 70 kB); alone it
/// is the whole object. Reading goes through the command line's parsing and checks (parseSetting(),
/// applySettings(), validate()), so a link accepts and refuses what `memwall analyze` does.
inline constexpr int kLinkVersion = 1;
/// Longest link read or written, in bytes: a custom device or model edited from a preset takes a few hundred; a
/// link past this size is refused before anything in it is decoded.
inline constexpr std::size_t kMaxLinkBytes = std::size_t{64} * 1024;
/// What errors about a link name as their origin: "link: batch: must be between 1 and 16777216, got 0".
inline constexpr const char *kLinkOrigin = "link";

/// True if `text` (less surrounding white space) starts with the scheme "memwall:", in any case: what the window's
/// paste and the command line's `--scenario` take as a link rather than text or a file name.
bool isScenarioLink(std::string_view text);

/// The link of a scenario: device, model and the options that differ from their defaults. Throws InputError when the
/// link would be longer than kMaxLinkBytes (a huge inline model), so a link is never written that could not be read.
/// A custom device or model is written against the preset of `lib` it differs least from.
std::string scenarioLink(const ScenarioFile &f, const PresetLibrary &lib);

/// Reads a link (surrounding white space ignored) with the ids resolved in `lib`. Throws InputError("link", KEY,
/// what is wrong) naming the key and quoting the value (echoValue()) for: a link longer than kMaxLinkBytes, another
/// scheme, characters that are not printable ASCII, bad percent-encoding, an unknown or repeated key, a value the
/// command line refuses, an unknown preset, an inline device or model that is not valid base64url, JSON (nesting
/// limited as in files) or, with its preset, a valid device or model, or a combination that validate() refuses. Nothing
/// is returned partly read.
ScenarioFile scenarioFromLink(std::string_view link, const PresetLibrary &lib);

/// The key an option has in a link: its scenario-file key, with "what_if." before the what-if factors.
std::string linkKey(const ScenarioOption &o);

} // namespace memwall::core
