#include "core/trends/trends.h"

#include "core/io/jsonreader.h"
#include "core/io/presets.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace memwall::core {

using nlohmann::json;

namespace {

bool validSeriesId(const std::string &id)
{
    static const std::regex re("[a-z0-9]+([_-][a-z0-9]+)*");
    return std::regex_match(id, re);
}

std::string nonEmptyString(JsonReader &r, std::string_view key)
{
    std::string s = r.string(key);
    if (s.find_first_not_of(" \t\r\n") == std::string::npos)
        r.fail(key, "must not be empty");
    return s;
}

bool fittable(double value) { return std::isfinite(value) && value > 0; }

/// Number of in-fit points, and whether at least two distinct years are among them.
std::pair<int, bool> fitSupport(const std::vector<TrendPoint> &points)
{
    int n = 0;
    double firstYear = 0;
    bool distinct = false;
    for (const TrendPoint &p : points) {
        if (!p.inFit)
            continue;
        if (n == 0)
            firstYear = p.year;
        else if (p.year != firstYear)
            distinct = true;
        ++n;
    }
    return {n, distinct};
}

TrendPoint pointFromJson(JsonReader &r)
{
    TrendPoint p;
    p.name = nonEmptyString(r, "name");
    p.year = r.number("year");
    if (p.year < 1900 || p.year > 2200)
        r.fail("year", "expected a decimal year between 1900 and 2200, got " + brief(r.raw("year")));
    p.value = r.number("value");
    if (!(p.value > 0))
        r.fail("value", "must be positive (growth is fitted on a log scale), got " + brief(r.raw("value")));
    if (r.has("normalized")) {
        const double n = r.number("normalized");
        if (!(n > 0))
            r.fail("normalized",
                   "must be positive (growth is fitted on a log scale), got " + brief(r.raw("normalized")));
        p.normalized = n;
    } else {
        r.number("normalized", 0.0); // marks the key as read (null allowed)
    }
    p.date = r.string("date", "");
    if (!p.date.empty()) {
        static const std::regex re("[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?");
        if (!std::regex_match(p.date, re))
            r.fail("date", "expected an ISO date \"YYYY-MM-DD\", got \"" + p.date + "\"");
    }
    p.labelInFigure = r.string("label_in_figure", "");
    p.identification = r.string("identification", "");
    p.group = r.string("group", "");
    p.note = r.string("note", "");
    p.marker = static_cast<int>(r.integer("marker", 0));
    p.inFit = r.boolean("in_fit", true);
    r.rejectUnknown();
    return p;
}

TrendSeries seriesFromJson(JsonReader &r, const std::string &file)
{
    TrendSeries s;
    s.file = file;
    s.id = r.string("id");
    if (!validSeriesId(s.id))
        r.fail("id", "must be lower-case letters, digits, underscores and dashes, got \"" + s.id + "\"");
    s.name = nonEmptyString(r, "name");
    s.unit = nonEmptyString(r, "unit");
    s.note = r.string("note", "");
    s.source = nonEmptyString(r, "source");
    s.fitted = r.boolean("fit");
    if (r.has("paper_factor_per_2_years")) {
        s.paperFactorPer2Years = r.positive("paper_factor_per_2_years");
    } else {
        r.number("paper_factor_per_2_years", 0.0);
    }
    const json &points = r.array("points");
    if (points.empty())
        r.fail("points", "must not be empty");
    s.points.reserve(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        JsonReader pr = r.element(points[i], i, "points");
        s.points.push_back(pointFromJson(pr));
    }
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const TrendPoint &a, const TrendPoint &b) { return a.year < b.year; });
    if (s.fitted) {
        const auto [n, distinct] = fitSupport(s.points);
        if (n < 2 || !distinct)
            r.fail("points", "a fitted series (\"fit\": true) needs at least two points with in_fit true and "
                             "different years, got " +
                                 std::to_string(n));
    }
    r.rejectUnknown();
    return s;
}

json pointToJson(const TrendPoint &p)
{
    json j = {{"name", p.name}, {"year", p.year}, {"value", p.value}};
    if (!p.date.empty())
        j["date"] = p.date;
    if (p.normalized)
        j["normalized"] = *p.normalized;
    if (!p.labelInFigure.empty())
        j["label_in_figure"] = p.labelInFigure;
    if (!p.identification.empty())
        j["identification"] = p.identification;
    if (!p.group.empty())
        j["group"] = p.group;
    if (!p.note.empty())
        j["note"] = p.note;
    j["in_fit"] = p.inFit;
    return j;
}

} // namespace

const TrendSeries *TrendData::find(std::string_view id) const
{
    for (const TrendSeries &s : series)
        if (s.id == id)
            return &s;
    return nullptr;
}

double GrowthFit::at(double year) const { return std::pow(10.0, interceptLog10 + slopeLog10PerYear * year); }

GrowthFit fitExponential(const std::vector<TrendPoint> &points)
{
    // Centre the years before regressing: decimal years near 2000 squared lose digits otherwise.
    std::vector<std::pair<double, double>> xy;
    xy.reserve(points.size());
    for (const TrendPoint &p : points) {
        if (!p.inFit)
            continue;
        if (!std::isfinite(p.year))
            throw std::invalid_argument("fitExponential: year of \"" + p.name + "\" is not finite");
        if (!fittable(p.value))
            throw std::invalid_argument("fitExponential: value of \"" + p.name +
                                        "\" must be positive and finite to be fitted on a log scale");
        xy.emplace_back(p.year, std::log10(p.value));
    }
    const auto n = static_cast<double>(xy.size());
    if (xy.size() < 2)
        throw std::invalid_argument("fitExponential: needs at least two points, got " + std::to_string(xy.size()));
    double mx = 0, my = 0;
    for (const auto &[x, y] : xy) {
        mx += x;
        my += y;
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0, syy = 0;
    for (const auto &[x, y] : xy) {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
        syy += (y - my) * (y - my);
    }
    if (!(sxx > 0))
        throw std::invalid_argument("fitExponential: all points share one year; no growth rate can be fitted");
    GrowthFit f;
    f.points = static_cast<int>(xy.size());
    f.slopeLog10PerYear = sxy / sxx;
    f.interceptLog10 = my - f.slopeLog10PerYear * mx;
    f.factorPer2Years = std::pow(10.0, 2.0 * f.slopeLog10PerYear);
    double ssr = 0;
    for (const auto &[x, y] : xy) {
        const double r = y - (f.interceptLog10 + f.slopeLog10PerYear * x);
        ssr += r * r;
    }
    f.r2 = syy > 0 ? std::max(0.0, 1.0 - ssr / syy) : 1.0;
    return f;
}

TrendSeries normalize(const TrendSeries &series, double baseYear)
{
    TrendSeries out = series;
    const TrendPoint *ref = nullptr;
    for (const TrendPoint &p : series.points) // first by year, then by order (points are not assumed sorted)
        if (p.year >= baseYear && (!ref || p.year < ref->year))
            ref = &p;
    if (!ref || !(ref->value > 0)) {
        out.points.clear();
        return out;
    }
    const double base = ref->value;
    std::ostringstream unit;
    unit << "x " << ref->name << " (" << static_cast<int>(std::floor(ref->year)) << ")";
    out.unit = unit.str();
    for (TrendPoint &p : out.points) {
        p.value /= base;
        p.normalized = p.value;
    }
    return out;
}

TrendData trendsFromJson(const json &j, const std::string &file)
{
    JsonReader r(j, file);
    const std::string kind = r.string("kind");
    if (kind != "trends")
        r.fail("kind", "expected \"trends\", got \"" + kind + "\"");
    const int64_t schema = r.integer("schema", 1);
    if (schema != 1)
        r.fail("schema", "version " + std::to_string(schema) + " is newer than this MemWall understands (1)");
    r.string("notes", "");
    const json &series = r.array("series");
    if (series.empty())
        r.fail("series", "must not be empty");
    TrendData data;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < series.size(); ++i) {
        JsonReader sr = r.element(series[i], i, "series");
        TrendSeries s = seriesFromJson(sr, file);
        if (!ids.insert(s.id).second)
            sr.fail("id", "duplicate series id \"" + s.id + "\"");
        data.series.push_back(std::move(s));
    }
    r.rejectUnknown();
    return data;
}

TrendData loadBuiltinTrends()
{
    TrendData all;
    for (const EmbeddedFile &f : builtinPresetFiles()) {
        const std::string_view path(f.path);
        if (!path.starts_with("trends/"))
            continue;
        const std::string origin = std::string("presets/") + f.path;
        TrendData d = trendsFromJson(parseJson(f.text, origin), origin);
        for (TrendSeries &s : d.series) {
            if (const TrendSeries *other = all.find(s.id))
                throw InputError(origin, "", "series id \"" + s.id + "\" is already defined in " + other->file);
            all.series.push_back(std::move(s));
        }
    }
    return all;
}

json toJson(const GrowthFit &f)
{
    return json{{"factor_per_2_years", f.factorPer2Years},
                {"r2", f.r2},
                {"slope_log10_per_year", f.slopeLog10PerYear},
                {"intercept_log10", f.interceptLog10},
                {"fit_points", f.points}};
}

json toJson(const TrendSeries &s)
{
    json j = {{"id", s.id},     {"name", s.name},     {"unit", s.unit},
              {"note", s.note}, {"source", s.source}, {"fitted", s.fitted}};
    if (s.fitted)
        j.update(toJson(fitExponential(s.points)));
    if (s.paperFactorPer2Years)
        j["paper_factor_per_2_years"] = *s.paperFactorPer2Years;
    json pts = json::array();
    for (const TrendPoint &p : s.points)
        pts.push_back(pointToJson(p));
    j["points"] = std::move(pts);
    return j;
}

json toJson(const TrendData &data)
{
    json fitted = json::array();
    json other = json::array();
    for (const TrendSeries &s : data.series)
        (s.fitted ? fitted : other).push_back(toJson(s));
    return json{{"series", std::move(fitted)}, {"other_series", std::move(other)}};
}

} // namespace memwall::core
