#include "ui/lessons/lesson.h"

#include "core/analysis/analysis.h"
#include "core/io/analysisjson.h"
#include "core/io/jsonreader.h"
#include "ui/charts/chartregistry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace memwall::ui {

using core::InputError;
using core::JsonReader;
using nlohmann::json;

QStringList lessonChartNames()
{
    QStringList names;
    for (const ChartInfo &info : chartRegistry())
        if (info.presentation) // a running lesson shows its step's chart in the presentation window
            names << info.id;
    return names;
}

StepProgress stepStart(const LessonStep &step) { return {!step.question.has_value(), step.reveal.isEmpty() ? 0 : 1}; }

StepProgress stepComplete(const LessonStep &step) { return {true, static_cast<int>(step.reveal.size())}; }

std::optional<QStringList> revealedPieces(const LessonStep &step, const StepProgress &progress)
{
    if (step.reveal.isEmpty())
        return std::nullopt;
    QStringList pieces;
    for (int i = 0; i < std::min(progress.revealed, static_cast<int>(step.reveal.size())); ++i)
        pieces += step.reveal[i];
    return pieces;
}

namespace {

bool validId(const std::string &id)
{
    return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

/// "text" is one string or an array of paragraphs (joined as <p> elements).
QString readText(JsonReader &r, std::string_view key)
{
    const json &t = r.raw(key);
    if (t.is_string())
        return QString::fromStdString(t.get<std::string>());
    if (!t.is_array() || t.empty())
        r.fail(key, "expected a string or a non-empty array of strings, got " + core::brief(t));
    QString out;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!t[i].is_string())
            r.fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a string, got " + core::brief(t[i]));
        out += "<p>" + QString::fromStdString(t[i].get<std::string>()) + "</p>";
    }
    return out;
}

/// "reveal": the stages, each a piece of the chart or an array of pieces shown together; each piece once.
QList<QStringList> readReveal(JsonReader &s, const QString &chart)
{
    const json &list = s.raw("reveal");
    const ChartInfo *info = findChart(chart);
    const QStringList pieces = info ? info->revealPieces : QStringList();
    if (pieces.isEmpty())
        s.fail("reveal", "the " + chart.toStdString() + " chart is shown whole; it has no pieces to reveal");
    if (!list.is_array() || list.empty())
        s.fail("reveal", "expected a non-empty array of stages, each a piece or an array of pieces (" +
                             pieces.join(", ").toStdString() + "), got " + core::brief(list));
    QList<QStringList> out;
    QStringList seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string stage = "reveal[" + std::to_string(i) + "]";
        const bool group = list[i].is_array();
        if (group && list[i].empty())
            s.fail(stage, "an empty stage reveals nothing");
        const json items = group ? list[i] : json::array({list[i]});
        QStringList names;
        for (std::size_t j = 0; j < items.size(); ++j) {
            const std::string field = group ? stage + "[" + std::to_string(j) + "]" : stage;
            if (!items[j].is_string())
                s.fail(field, "expected a piece name, got " + core::brief(items[j]));
            const QString piece = QString::fromStdString(items[j].get<std::string>());
            if (!pieces.contains(piece))
                s.fail(field, "the " + chart.toStdString() + " chart has no piece \"" + piece.toStdString() + "\" (" +
                                  pieces.join(", ").toStdString() + ")");
            if (seen.contains(piece))
                s.fail(field, "\"" + piece.toStdString() + "\" is revealed twice");
            seen << piece;
            names << piece;
        }
        out << names;
    }
    return out;
}

/// "compare": scenario B's overrides, as the compare panel sets them.
CompareSpec readCompare(JsonReader &s, const core::PresetLibrary &lib)
{
    JsonReader c = s.object("compare");
    CompareSpec spec;
    if (c.has("hardware")) {
        const std::string id = c.string("hardware");
        const auto *hw = lib.findHardware(id);
        if (!hw)
            c.fail("hardware", core::unknownPresetMessage(lib, true, id));
        spec.hardware = *hw;
    }
    if (c.has("weights")) {
        const std::string w = c.string("weights");
        spec.weights = core::weightFormatFromString(w);
        if (!spec.weights)
            c.fail("weights", "unknown weight format \"" + w + "\"");
    }
    for (const char *key : {"kv", "activations"}) {
        if (!c.has(key))
            continue;
        const std::string d = c.string(key);
        const auto dtype = core::dtypeFromString(d);
        if (!dtype)
            c.fail(key, "unknown number format \"" + d + "\" (" + core::dtypeList() + ")");
        (std::string_view(key) == "kv" ? spec.kv : spec.activations) = dtype;
    }
    c.rejectUnknown();
    if (spec.isEmpty())
        s.fail("compare", "names nothing to compare (hardware, weights, kv or activations); leave it out for none");
    return spec;
}

/// "question": what is asked, the placeholder expression that answers it, its unit or its choices.
LessonQuestion readQuestion(JsonReader &s, const std::map<std::string, LessonFact, std::less<>> &facts)
{
    JsonReader q = s.object("question");
    LessonQuestion out;
    out.ask = QString::fromStdString(q.string("ask"));
    if (out.ask.trimmed().isEmpty())
        q.fail("ask", "must not be empty");
    if (const auto errors = checkLessonText(out.ask.toStdString(), facts); !errors.empty())
        q.fail("ask", errors.front());
    out.given = QString::fromStdString(q.string("given", ""));
    if (const auto errors = checkLessonText(out.given.toStdString(), facts); !errors.empty())
        q.fail("given", errors.front());
    out.answer = q.string("answer");
    if (out.answer.empty() || out.answer.find_first_of("{}") != std::string::npos)
        q.fail("answer", "expected a placeholder expression without braces (\"largest_fitting_batch\"), got \"" +
                             out.answer + "\"");
    if (const auto errors = checkLessonText("{" + out.answer + "}", facts); !errors.empty())
        q.fail("answer", errors.front());
    out.unit = QString::fromStdString(q.string("unit", ""));
    if (q.has("choices")) {
        const json &list = q.raw("choices");
        if (!list.is_array() || list.size() < 2)
            q.fail("choices", "expected at least two choices, got " + core::brief(list));
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_string() || list[i].get<std::string>().empty())
                q.fail("choices[" + std::to_string(i) + "]",
                       "expected a non-empty string, got " + core::brief(list[i]));
            const QString c = QString::fromStdString(list[i].get<std::string>());
            if (out.choices.contains(c))
                q.fail("choices[" + std::to_string(i) + "]", "\"" + c.toStdString() + "\" is listed twice");
            out.choices << c;
        }
        if (!out.unit.isEmpty())
            q.fail("unit", "a question with choices writes its answer as the choice; leave the unit out");
    }
    q.rejectUnknown();
    return out;
}

} // namespace

core::ScenarioFile stepScenarioFile(const LessonStep &step, const core::PresetLibrary &lib, const std::string &where)
{
    json j = step.scenario;
    if (!j.is_object())
        throw InputError(where + ": scenario: expected an object, got " + core::brief(j));
    core::ScenarioFile f;
    for (const bool hardware : {true, false}) {
        const char *key = hardware ? "hardware" : "model";
        if (!j.contains(key))
            throw InputError(where + ": scenario." + key + ": missing (the lesson or the step must name a " + key +
                             " preset)");
        if (!j[key].is_string())
            throw InputError(where + ": scenario." + key + ": expected a preset id, got " + core::brief(j[key]));
        const std::string id = j[key].get<std::string>();
        if (hardware) {
            const auto *hw = lib.findHardware(id);
            if (!hw)
                throw InputError(where + ": scenario.hardware: " + core::unknownPresetMessage(lib, true, id));
            f.hardware = *hw;
        } else {
            const auto *m = lib.findModel(id);
            if (!m)
                throw InputError(where + ": scenario.model: " + core::unknownPresetMessage(lib, false, id));
            f.model = m->shape;
        }
        j.erase(key);
    }
    f.scenario = core::scenarioFromJson(j, where);
    return f;
}

Lesson lessonFromJson(const json &j, const std::string &file, const core::PresetLibrary &lib)
{
    if (!j.is_object())
        throw InputError(file + ": expected a lesson object ({\"kind\": \"lesson\", ...}), got " + core::brief(j));
    JsonReader r(j, file);
    const std::string kind = r.string("kind", "lesson");
    if (kind != "lesson")
        r.fail("kind", "expected \"lesson\", got \"" + kind + "\"");
    const int64_t schema = r.integer("schema", 1);
    if (schema != 1)
        r.fail("schema", "this MemWall reads lesson schema 1, got " + std::to_string(schema));

    Lesson l;
    l.file = QString::fromStdString(file);
    const std::string id = r.string("id");
    if (!validId(id))
        r.fail("id", "must be lower-case letters, digits and dashes, got \"" + id + "\"");
    l.id = QString::fromStdString(id);
    l.title = QString::fromStdString(r.string("title"));
    if (l.title.trimmed().isEmpty())
        r.fail("title", "must not be empty");
    l.summary = QString::fromStdString(r.string("summary", ""));

    if (r.has("facts")) {
        JsonReader facts = r.object("facts");
        for (const auto &[name, value] : facts.node().items()) {
            JsonReader fr = facts.object(name);
            LessonFact fact;
            fact.value = fr.number("value");
            fact.unit = fr.string("unit", "");
            fact.source = fr.string("source");
            if (fact.source.empty())
                fr.fail("source", "every fact needs its public source");
            fr.rejectUnknown();
            l.facts[name] = fact;
        }
    }

    json base = json::object();
    if (r.has("scenario")) {
        base = r.raw("scenario");
        if (!base.is_object())
            r.fail("scenario", "expected an object, got " + core::brief(base));
    }

    const json &steps = r.array("steps");
    if (steps.empty())
        r.fail("steps", "a lesson needs at least one step");
    const QStringList charts = lessonChartNames();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        JsonReader s = r.element(steps[i], i, "steps");
        LessonStep step;
        step.title = QString::fromStdString(s.string("title"));
        const std::string chart = s.string("chart");
        step.chart = QString::fromStdString(chart);
        if (!charts.contains(step.chart))
            s.fail("chart", "unknown chart \"" + chart + "\" (" + charts.join(", ").toStdString() + ")");
        step.scenario = base;
        if (s.has("scenario")) {
            const json &own = s.raw("scenario");
            if (!own.is_object())
                s.fail("scenario", "expected an object, got " + core::brief(own));
            step.scenario.update(own);
        }
        step.highlight = QString::fromStdString(s.string("highlight", ""));
        step.text = readText(s, "text");
        if (const auto errors = checkLessonText(step.text.toStdString(), l.facts); !errors.empty())
            s.fail("text", errors.front());
        if (s.has("reveal"))
            step.reveal = readReveal(s, step.chart);
        if (s.has("compare"))
            step.compare = readCompare(s, lib);
        if (s.has("question"))
            step.question = readQuestion(s, l.facts);
        s.rejectUnknown();

        const std::string where = file + ": steps[" + std::to_string(i) + "]";
        const core::ScenarioFile f = stepScenarioFile(step, lib, where);
        LessonTextContext ctx;
        ctx.file = f;
        ctx.presets = &lib;
        ctx.facts = l.facts;
        try {
            ctx.analysis = core::analyze(f.hardware, f.model, f.scenario);
        } catch (const core::AnalysisError &e) {
            throw InputError(where + ": scenario: " + e.what());
        }
        // The answer must be computable, and among the choices, in the step's own scenario.
        if (step.question)
            if (const QuestionView v = renderQuestion(*step.question, ctx); !v.ok())
                throw InputError(where +
                                 ": question: " + (v.errors.empty() ? std::string("no answer") : v.errors.front()));
        l.steps.push_back(std::move(step));
    }
    r.rejectUnknown();
    return l;
}

Lesson readLessonFile(const QString &path, const core::PresetLibrary &lib)
{
    const std::string name = QFileInfo(path).fileName().toStdString();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(name + ": cannot read: " + f.errorString().toStdString());
    if (static_cast<std::uintmax_t>(f.size()) > core::kMaxInputFileBytes)
        throw InputError(name + ": larger than " + std::to_string(core::kMaxInputFileBytes) + " bytes");
    const QByteArray bytes = f.readAll();
    return lessonFromJson(
        core::parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), name), name, lib);
}

LessonLoadResult loadLessons(const core::PresetLibrary &lib, const QString &dir)
{
    LessonLoadResult out;
    const QDir d(dir);
    const QStringList names = d.entryList({"*.json"}, QDir::Files, QDir::Name);
    for (const QString &n : names) {
        try {
            out.lessons.push_back(readLessonFile(d.filePath(n), lib));
        } catch (const std::exception &e) {
            out.errors << QString::fromStdString(e.what());
        }
    }
    return out;
}

} // namespace memwall::ui
