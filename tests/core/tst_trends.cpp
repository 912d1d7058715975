// The trend data and its fitted growth: the shipped data must reproduce the growth rates the memory-wall paper
// states (Gholami et al., "AI and Memory Wall", IEEE Micro 2024), the fit must be exact on synthetic data, and
// malformed trend files must fail with one line naming file and field. The ridge point of each device, and the
// ridge's growth as the paper's two factors give it. The devices of 2023-25 MemWall adds to the paper's FLOPS and
// DRAM series, and the refit with them.
#include "core/io/jsonreader.h"
#include "core/io/presets.h"
#include "core/trends/refit.h"
#include "core/trends/ridge.h"
#include "core/trends/trends.h"

#include <QtTest>

#include <cmath>
#include <stdexcept>
#include <string>

using memwall::core::fitExponential;
using memwall::core::GrowthFit;
using memwall::core::InputError;
using memwall::core::TrendData;
using memwall::core::TrendPoint;
using memwall::core::TrendSeries;
using nlohmann::json;

namespace {

TrendPoint point(const char *name, double year, double value, bool inFit = true)
{
    TrendPoint p;
    p.name = name;
    p.year = year;
    p.value = value;
    p.inFit = inFit;
    return p;
}

/// The built-in devices devicesAfterPaper() adds to both hardware series, in its order (year, then id), with the
/// figures of their preset files: the dense FP16 peak (BF16 where the preset has no FP16: the TPUs, Gaudi 3) and the
/// main memory's bandwidth. A whole release year is drawn (and fitted) mid-year.
struct Added
{
    const char *id;
    double year;
    double flops;
    const char *format;
    double bandwidth;
};
constexpr Added kAdded[] = {
    {"h200-sxm", 2023.5, 989.4e12, "fp16", 4.8e12}, {"mi300x", 2023.5, 1307.4e12, "fp16", 5.3e12},
    {"tpu-v5e", 2023.5, 197e12, "bf16", 819e9},     {"tpu-v5p", 2023.5, 459e12, "bf16", 2765e9},
    {"b200", 2024.5, 2250e12, "fp16", 8e12},        {"gaudi3", 2024.5, 1835e12, "bf16", 3.67e12},
    {"gb200-nvl72", 2024.5, 2500e12, "fp16", 8e12}, {"h20", 2024.5, 148e12, "fp16", 4e12},
    {"mi325x", 2024.5, 1307.4e12, "fp16", 6e12},    {"tpu-v6e", 2024.5, 918e12, "bf16", 1638e9},
    {"b300", 2025.5, 2250e12, "fp16", 7.75e12},     {"gb300", 2025.5, 2500e12, "fp16", 8e12},
    {"mi355x", 2025.5, 2516.6e12, "fp16", 8e12},    {"tpu7x", 2025.5, 2307e12, "bf16", 7.3e12},
};

/// A made-up device for the rule's cases: a GPU of 2024 with 1 PFLOP/s FP16 and 4 TB/s of HBM3.
memwall::core::HardwareSpec madeUpDevice()
{
    using namespace memwall::core;
    HardwareSpec hw;
    hw.id = "made-up";
    hw.name = "Made-up accelerator";
    hw.category = "gpu";
    hw.year = {2024, "test"};
    hw.peakFlops[index(DType::FP16)] = Sourced{1e15, "test"};
    hw.peakFlops[index(DType::BF16)] = Sourced{1e15, "test"};
    hw.peakFlops[index(DType::FP8)] = Sourced{2e15, "test"};
    hw.memory.push_back({"SRAM", MemoryKind::Sram, {5e7, "test"}, {3e13, "test"}});
    hw.memory.push_back({"HBM3 (6 stacks)", MemoryKind::Dram, {8e10, "test"}, {4e12, "test"}});
    return hw;
}

/// A minimal valid trends file with one fitted series of three points.
json validFile()
{
    return json::parse(R"({
      "kind": "trends", "schema": 1,
      "series": [{
        "id": "demo", "name": "Demo", "unit": "FLOP/s", "note": "n", "source": "made up for a test", "fit": true,
        "points": [
          {"name": "a", "year": 2000.0, "value": 1e9},
          {"name": "b", "year": 2002.0, "value": 3e9},
          {"name": "c", "year": 2004.0, "value": 9e9}
        ]
      }]
    })");
}

} // namespace

class TstTrends : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_data = memwall::core::loadBuiltinTrends();
        QVERIFY(!m_data.series.empty());
    }

    // The ridge point of a preset: its dense 16-bit peak (FP16, else BF16, else its fastest float format) over main
    // memory, with the figures of its preset file counted by hand.
    void deviceRidge_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("format");
        QTest::addColumn<double>("ridge");
        QTest::addColumn<bool>("dram");
        QTest::newRow("H100 SXM: 989.4 TFLOP/s FP16 / 3.35 TB/s = 295.3 FLOP/B")
            << "h100-sxm"
            << "fp16" << 989.4e12 / 3.35e12 << true;
        QTest::newRow("P100 SXM2: 21.2 TFLOP/s FP16 / 732 GB/s = 29.0 FLOP/B") << "p100-sxm2"
                                                                               << "fp16" << 21.2e12 / 732e9 << true;
        QTest::newRow("TPU v4, no FP16: 275 TFLOP/s BF16 / 1.2 TB/s = 229 FLOP/B") << "tpu-v4"
                                                                                   << "bf16" << 275e12 / 1.2e12 << true;
        QTest::newRow("Xeon Gold 6242, no 16-bit: FP32 (not INT8 OP/s) / 140.8 GB/s")
            << "xeon-gold-6242"
            << "fp32" << -1.0 << true; // -1: FP32 peak of the preset / its bandwidth, read below
        QTest::newRow("Cerebras WSE-2: 7.5 PFLOP/s FP16 / 20 PB/s on-chip SRAM = 0.375")
            << "cerebras-wse2"
            << "fp16" << 7.5e15 / 20e15 << false;
    }
    void deviceRidge()
    {
        QFETCH(QString, id);
        QFETCH(QString, format);
        QFETCH(double, ridge);
        QFETCH(bool, dram);
        memwall::core::PresetLibrary lib;
        lib.loadBuiltin();
        const auto *hw = lib.findHardware(id.toStdString());
        QVERIFY(hw);
        const auto d = memwall::core::deviceRidge(*hw);
        QVERIFY(d);
        QCOMPARE(QString::fromLatin1(toString(d->format)), format);
        if (ridge < 0) {
            QCOMPARE(hw->peak(memwall::core::DType::INT8) > hw->peak(memwall::core::DType::FP32), true);
            ridge = hw->peak(memwall::core::DType::FP32) / 140.8e9;
        }
        QVERIFY2(std::abs(d->ridge - ridge) <= 1e-9 * ridge, qPrintable(QString::number(d->ridge)));
        QCOMPARE(d->memory == memwall::core::MemoryKind::Dram, dram);
        QCOMPARE(d->year, hw->year.value);
    }

    void ridgeFormatNeedsAFloat()
    {
        memwall::core::HardwareSpec hw;
        hw.id = "int-only";
        hw.year.value = 2020;
        hw.peakFlops[memwall::core::index(memwall::core::DType::INT8)] = memwall::core::Sourced{1e15, "test"};
        hw.memory.push_back({"DRAM", memwall::core::MemoryKind::Dram, {1e9, "test"}, {1e12, "test"}});
        QVERIFY(!memwall::core::ridgeFormat(hw));
        QVERIFY(!memwall::core::deviceRidge(hw)); // OP/s are not FLOP/s
        hw.peakFlops[memwall::core::index(memwall::core::DType::FP8)] = memwall::core::Sourced{2e15, "test"};
        hw.peakFlops[memwall::core::index(memwall::core::DType::FP32)] = memwall::core::Sourced{1e14, "test"};
        QVERIFY(*memwall::core::ridgeFormat(hw) == memwall::core::DType::FP8); // the fastest float format
        QCOMPARE(memwall::core::deviceRidge(hw)->ridge, 2e15 / 1e12);
    }

    // The ridge grows by the paper's FLOPS factor over its DRAM factor, both read from the trend data.
    void ridgeGrowth()
    {
        const auto g = memwall::core::paperRidgeGrowth(m_data);
        QVERIFY(g);
        QCOMPARE(g->computePer2Years, *m_data.find("hw_peak_flops")->paperFactorPer2Years);
        QCOMPARE(g->memoryPer2Years, *m_data.find("dram_bandwidth")->paperFactorPer2Years);
        QVERIFY(std::abs(g->per2Years() - 3.0 / 1.6) < 1e-12); // the paper: x3.0 and x1.6 -> x1.875
        // Two years on, x1.875; ten years on, 1.875^5 = 23.2; and back two years, / 1.875.
        QVERIFY(std::abs(g->at(2016.5, 29.0, 2018.5) - 29.0 * 1.875) < 1e-9);
        QVERIFY(std::abs(g->at(2016.5, 29.0, 2026.5) - 29.0 * std::pow(1.875, 5)) < 1e-9);
        QVERIFY(std::abs(g->at(2016.5, 29.0, 2014.5) - 29.0 / 1.875) < 1e-9);
        TrendData none;
        QVERIFY(!memwall::core::paperRidgeGrowth(none));
    }

    void ridgeAnchorIsTheEarliest16BitDramDevice()
    {
        memwall::core::PresetLibrary lib;
        lib.loadBuiltin();
        const auto devices = memwall::core::deviceRidges(lib.hardware());
        QCOMPARE(devices.size(), lib.hardware().size()); // every built-in device has a ridge
        const auto *anchor = memwall::core::ridgeAnchor(devices);
        QVERIFY(anchor);
        QCOMPARE(anchor->id, std::string("p100-sxm2")); // 2016; the Xeon (2019, FP32) and the SRAM devices never
        QCOMPARE(memwall::core::markerYear(2016), 2016.5);
        QCOMPARE(memwall::core::markerYear(2016.25), 2016.25);
    }

    // The devices MemWall adds after the paper's data (devicesAfterPaper()): the built-in GPUs and ASICs with HBM of
    // 2023-25, the same 13 on both series, each with its preset's name and figure. Left out by the rule: the H100s and
    // Gaudi 2 (2022, the paper's last year), the L40S and RTX 5090 (GDDR), the Apple M3 Ultra and M4 Max (LPDDR),
    // Cerebras WSE-3 (wafer-scale, SRAM).
    void devicesAfterPaper_data()
    {
        QTest::addColumn<QString>("series");
        QTest::addColumn<QStringList>("ids");
        QTest::newRow("peak FLOPS: dense FP16, else BF16")
            << "hw_peak_flops"
            << QStringList{"h200-sxm", "mi300x", "tpu-v5e", "tpu-v5p", "b200",  "gaudi3", "gb200-nvl72",
                           "h20",      "mi325x", "tpu-v6e", "b300",    "gb300", "mi355x", "tpu7x"};
        QTest::newRow("DRAM bandwidth: main memory")
            << "dram_bandwidth"
            << QStringList{"h200-sxm", "mi300x", "tpu-v5e", "tpu-v5p", "b200",  "gaudi3", "gb200-nvl72",
                           "h20",      "mi325x", "tpu-v6e", "b300",    "gb300", "mi355x", "tpu7x"};
    }
    void devicesAfterPaper()
    {
        QFETCH(QString, series);
        QFETCH(QStringList, ids);
        memwall::core::PresetLibrary lib;
        lib.loadBuiltin();
        const TrendSeries *s = m_data.find(series.toStdString());
        QVERIFY(s);
        const auto added = memwall::core::devicesAfterPaper(*s, lib.hardware());
        QStringList got;
        for (const auto &d : added)
            got << QString::fromStdString(d.id);
        QCOMPARE(got, ids);
        const bool flops = series == "hw_peak_flops";
        QCOMPARE(std::size(kAdded), added.size());
        for (std::size_t i = 0; i < added.size(); ++i) {
            const auto &d = added[i];
            const Added &want = kAdded[i];
            QCOMPARE(d.id, std::string(want.id));
            QCOMPARE(d.point.name, lib.findHardware(d.id)->name);
            QCOMPARE(d.point.year, want.year);
            QVERIFY(d.point.inFit);
            QCOMPARE(d.point.value, flops ? want.flops : want.bandwidth);
            QCOMPARE(d.format.has_value(), flops);
            if (flops)
                QCOMPARE(std::string(toString(*d.format)), std::string(want.format));
            else
                QVERIFY2(d.memory.starts_with("HBM"), d.memory.c_str());
        }
        // Only the two per-chip series take devices.
        QVERIFY(memwall::core::devicesAfterPaper(*m_data.find("interconnect_bandwidth"), lib.hardware()).empty());
        QVERIFY(memwall::core::devicesAfterPaper(*m_data.find("ai_hw_memory"), lib.hardware()).empty());
    }

    // The rule, case by case, on a made-up GPU of 2024 with HBM3 (taken on both series) changed in one respect.
    void devicesAfterPaperRule_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<bool>("onFlops");
        QTest::addColumn<bool>("onDram");
        QTest::newRow("as made: a GPU with HBM, 2024") << "" << true << true;
        QTest::newRow("an ASIC") << "asic" << true << true;
        QTest::newRow("no FP16: its BF16 peak") << "bf16 only" << true << true;
        QTest::newRow("no 16-bit float: FP8 is not the series' format") << "fp8 only" << false << true;
        QTest::newRow("a CPU with HBM (as Xeon Max has)") << "cpu" << false << false;
        QTest::newRow("wafer-scale") << "wafer-scale" << false << false;
        QTest::newRow("GDDR7, as a consumer card") << "GDDR7 (512-bit)" << false << false;
        QTest::newRow("LPDDR5X, as a laptop chip") << "Unified memory, LPDDR5X" << false << false;
        QTest::newRow("SRAM only") << "sram only" << false << false;
        QTest::newRow("2022, the paper's last year on both series") << "2022" << false << false;
        QTest::newRow("2023.0 is a year after") << "2023" << true << true;
        QTest::newRow("no year") << "0" << false << false;
    }
    void devicesAfterPaperRule()
    {
        using namespace memwall::core;
        QFETCH(QString, change);
        QFETCH(bool, onFlops);
        QFETCH(bool, onDram);
        HardwareSpec hw = madeUpDevice();
        if (change == "asic" || change == "cpu" || change == "wafer-scale")
            hw.category = change.toStdString();
        else if (change == "bf16 only")
            hw.peakFlops[index(DType::FP16)].reset();
        else if (change == "fp8 only") {
            hw.peakFlops[index(DType::FP16)].reset();
            hw.peakFlops[index(DType::BF16)].reset();
        } else if (change.contains("DDR"))
            hw.memory[1].name = change.toStdString();
        else if (change == "sram only")
            hw.memory.pop_back();
        else if (!change.isEmpty())
            hw.year.value = change.toDouble();
        const auto flops = memwall::core::devicesAfterPaper(*m_data.find("hw_peak_flops"), {hw});
        const auto dram = memwall::core::devicesAfterPaper(*m_data.find("dram_bandwidth"), {hw});
        QCOMPARE(flops.size(), std::size_t(onFlops ? 1 : 0));
        QCOMPARE(dram.size(), std::size_t(onDram ? 1 : 0));
        if (onFlops) {
            QCOMPARE(flops[0].point.value, 1e15);
            QVERIFY(*flops[0].format == (change == "bf16 only" ? DType::BF16 : DType::FP16));
            QCOMPARE(flops[0].point.year, std::floor(hw.year.value) + 0.5);
        }
        if (onDram) {
            QCOMPARE(dram[0].point.value, 4e12);
            QCOMPARE(dram[0].memory, std::string("HBM3 (6 stacks)"));
        }
    }

    // "After the paper" is after its last point in the fit: a later point the fit leaves out does not move it.
    void devicesAfterPaperFollowTheFit()
    {
        TrendSeries s = *m_data.find("dram_bandwidth");
        s.points.push_back(point("plotted, not fitted", 2024.2, 1e13, false));
        const auto hw = madeUpDevice(); // 2024
        QCOMPARE(memwall::core::devicesAfterPaper(s, {hw}).size(), std::size_t(1));
        s.points.back().inFit = true;
        QVERIFY(memwall::core::devicesAfterPaper(s, {hw}).empty());
    }

    // The refit: the paper's in-fit points and the 14 devices above, fitted by least squares of log10(value) on the
    // year. Computed here in closed form (slope = (n Sxy - Sx Sy) / (n Sxx - Sx^2), r2 the squared correlation), and
    // pinned to the figures Python gives for the same inputs (the in-fit points of presets/trends/hardware.json
    // and kAdded):
    //   xs = years - 2000, ys = log10(values); b = cov(xs, ys) / var(xs); 10 ** (2 * b); r = corr(xs, ys)
    // The paper's factors stay: 3.03 and 1.59 (dataReadmeFactors).
    void refit_data()
    {
        QTest::addColumn<QString>("series");
        QTest::addColumn<double>("factor");
        QTest::addColumn<double>("r2");
        QTest::addColumn<int>("points");
        QTest::newRow("peak FLOPS: x3.03 -> x2.95 per 2 years")
            << "hw_peak_flops" << 2.9453550490415115 << 0.94715678283618154 << 37 + 14;
        QTest::newRow("DRAM bandwidth: x1.59 -> x1.68 per 2 years")
            << "dram_bandwidth" << 1.6750395899348576 << 0.89884628630900776 << 12 + 14;
    }
    void refit()
    {
        QFETCH(QString, series);
        QFETCH(double, factor);
        QFETCH(double, r2);
        QFETCH(int, points);
        memwall::core::PresetLibrary lib;
        lib.loadBuiltin();
        const TrendSeries &s = *m_data.find(series.toStdString());
        const bool flops = series == "hw_peak_flops";
        std::vector<std::pair<double, double>> xy;
        for (const TrendPoint &p : s.points)
            if (p.inFit)
                xy.emplace_back(p.year - 2000, std::log10(p.value));
        for (const Added &a : kAdded)
            xy.emplace_back(a.year - 2000, std::log10(flops ? a.flops : a.bandwidth));
        QCOMPARE(int(xy.size()), points);
        double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
        for (const auto &[x, y] : xy) {
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            syy += y * y;
        }
        const double n = double(xy.size());
        const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        const double byHand = std::pow(10.0, 2 * slope);
        const double r2ByHand = (n * sxy - sx * sy) * (n * sxy - sx * sy) / ((n * sxx - sx * sx) * (n * syy - sy * sy));
        QVERIFY2(std::abs(byHand - factor) < 1e-9, qPrintable(QString::number(byHand, 'g', 17)));
        QVERIFY2(std::abs(r2ByHand - r2) < 1e-9, qPrintable(QString::number(r2ByHand, 'g', 17)));

        const GrowthFit f = memwall::core::refit(s, memwall::core::devicesAfterPaper(s, lib.hardware()));
        QCOMPARE(f.points, points);
        QVERIFY2(std::abs(f.factorPer2Years - factor) < 1e-9, qPrintable(QString::number(f.factorPer2Years, 'g', 17)));
        QVERIFY2(std::abs(f.r2 - r2) < 1e-9, qPrintable(QString::number(f.r2, 'g', 17)));
        // The refit's line passes through the means, as least squares does.
        QVERIFY(std::abs(std::log10(f.at(2000 + sx / n)) - sy / n) < 1e-9);
        // Without devices it is the paper's fit.
        QCOMPARE(memwall::core::refit(s, {}).factorPer2Years, fitExponential(s.points).factorPer2Years);
        // `memwall trends --json` carries the same refit and devices beside the paper's fit of the series.
        const nlohmann::json doc = memwall::core::toJsonWithRefits(m_data, lib.hardware());
        for (const nlohmann::json &js : doc.at("series")) {
            if (js.at("id") != series.toStdString())
                continue;
            QVERIFY(std::abs(js.at("refit").at("factor_per_2_years").get<double>() - factor) < 1e-9);
            QCOMPARE(js.at("refit").at("fit_points").get<int>(), points);
            QCOMPARE(js.at("added_points").size(), std::size(kAdded));
            QCOMPARE(js.at("added_points").front().at("id").get<std::string>(), std::string(kAdded[0].id));
            QCOMPARE(js.at("factor_per_2_years").get<double>(), fitExponential(s.points).factorPer2Years);
        }
        for (const nlohmann::json &js : doc.at("series"))
            QCOMPARE(js.contains("refit"), js.at("id") == "hw_peak_flops" || js.at("id") == "dram_bandwidth");
    }

    void paperFactors_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("paper");
        QTest::addColumn<double>("tolerance");
        QTest::addColumn<int>("fitPoints");
        QTest::newRow("peak FLOPS 3.0x per 2 years (Gholami et al. 2024)") << "hw_peak_flops" << 3.0 << 0.1 << 37;
        QTest::newRow("DRAM bandwidth 1.6x per 2 years (Gholami et al. 2024)") << "dram_bandwidth" << 1.6 << 0.05 << 12;
        QTest::newRow("interconnect bandwidth 1.4x per 2 years (Gholami et al. 2024)")
            << "interconnect_bandwidth" << 1.4 << 0.05 << 10;
        QTest::newRow("Transformer parameters 410x per 2 years (Gholami et al. 2024)")
            << "transformer_params" << 410.0 << 15.0 << 10;
        QTest::newRow("Transformer training compute 750x per 2 years (Gholami et al. 2024)")
            << "training_compute" << 750.0 << 25.0 << 10;
        // The paper rounds single-accelerator memory growth to 2x; its 7 plotted markers fit to ~1.86x.
        QTest::newRow("accelerator memory 2x per 2 years (Gholami et al. 2024, rounded)")
            << "ai_hw_memory" << 2.0 << 0.2 << 7;
    }

    void paperFactors()
    {
        QFETCH(QString, id);
        QFETCH(double, paper);
        QFETCH(double, tolerance);
        QFETCH(int, fitPoints);
        const TrendSeries *s = m_data.find(id.toStdString());
        QVERIFY2(s, qPrintable("no series " + id));
        QVERIFY(s->fitted);
        QVERIFY(!s->source.empty());
        QVERIFY(s->paperFactorPer2Years.has_value());
        QCOMPARE(*s->paperFactorPer2Years, paper);
        const GrowthFit f = fitExponential(s->points);
        QCOMPARE(f.points, fitPoints);
        QVERIFY2(std::abs(f.factorPer2Years - paper) <= tolerance,
                 qPrintable(QString("%1: fitted %2x per 2 years, paper %3x +- %4")
                                .arg(id)
                                .arg(f.factorPer2Years)
                                .arg(paper)
                                .arg(tolerance)));
        QVERIFY(f.r2 > 0.8);
        QVERIFY(f.r2 <= 1.0);
    }

    // The data README reports the least-squares factors of the shipped CSVs to 3 significant digits.
    void dataReadmeFactors_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("expected");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("FLOPS 3.03") << "hw_peak_flops" << 3.03 << 0.005;
        QTest::newRow("DRAM 1.59") << "dram_bandwidth" << 1.59 << 0.005;
        QTest::newRow("interconnect 1.42") << "interconnect_bandwidth" << 1.42 << 0.005;
        QTest::newRow("Transformer params 413") << "transformer_params" << 413.0 << 0.5;
        QTest::newRow("training compute 753") << "training_compute" << 753.0 << 0.5;
    }

    void dataReadmeFactors()
    {
        QFETCH(QString, id);
        QFETCH(double, expected);
        QFETCH(double, tolerance);
        const TrendSeries *s = m_data.find(id.toStdString());
        QVERIFY(s);
        const double f = fitExponential(s->points).factorPer2Years;
        QVERIFY2(std::abs(f - expected) <= tolerance, qPrintable(QString("%1: %2").arg(id).arg(f, 0, 'g', 6)));
    }

    // normalized (what the figure plots) is authoritative; value = normalized x an inferred base. Both must give
    // the same growth, and the FLOPS note must warn that precisions are mixed.
    void hardwareNormalizedAgreesWithValue()
    {
        for (const char *id : {"hw_peak_flops", "dram_bandwidth", "interconnect_bandwidth"}) {
            const TrendSeries *s = m_data.find(id);
            QVERIFY(s);
            std::vector<TrendPoint> normalizedPoints;
            for (const TrendPoint &p : s->points) {
                QVERIFY2(p.normalized.has_value(), id);
                QVERIFY(p.value > 0);
                normalizedPoints.push_back(point(p.name.c_str(), p.year, *p.normalized));
            }
            QVERIFY(std::abs(fitExponential(normalizedPoints).factorPer2Years -
                             fitExponential(s->points).factorPer2Years) < 1e-3);
        }
        const TrendSeries *flops = m_data.find("hw_peak_flops");
        QVERIFY(flops->note.find("FP32") != std::string::npos);
        QVERIFY(flops->note.find("FP16/BF16") != std::string::npos);
        QCOMPARE(flops->unit, std::string("FLOP/s"));
        // The inferred base reproduces the datasheet peaks of the calibration parts.
        bool sawH100 = false;
        for (const TrendPoint &p : flops->points)
            if (p.name == "H100") {
                sawH100 = true;
                QVERIFY(std::abs(p.value - 989.5e12) < 1e9);
            }
        QVERIFY(sawH100);
    }

    void seriesAreSortedAndComplete()
    {
        for (const char *id :
             {"hw_peak_flops", "dram_bandwidth", "interconnect_bandwidth", "transformer_params", "training_compute",
              "training_compute_other", "cv_params", "recsys_params", "ai_hw_memory"})
            QVERIFY2(m_data.find(id), id);
        for (const TrendSeries &s : m_data.series) {
            QVERIFY(!s.points.empty());
            for (std::size_t i = 1; i < s.points.size(); ++i)
                QVERIFY(s.points[i - 1].year <= s.points[i].year);
            QVERIFY(s.file.starts_with("presets/trends/"));
        }
        // The 2021-only Transformer markers are plotted but not fitted.
        int leftOut = 0;
        for (const TrendPoint &p : m_data.find("transformer_params")->points)
            leftOut += p.inFit ? 0 : 1;
        QCOMPARE(leftOut, 2);
    }

    void syntheticFitIsExact()
    {
        // value = 2^((y - 2000) / 2): doubles every two years.
        std::vector<TrendPoint> pts;
        for (double y : {1999.25, 2000.0, 2003.5, 2007.0, 2010.75, 2021.0})
            pts.push_back(point("p", y, std::pow(2.0, (y - 2000.0) / 2.0)));
        const GrowthFit f = fitExponential(pts);
        QVERIFY(std::abs(f.factorPer2Years - 2.0) < 1e-9);
        QVERIFY(std::abs(f.slopeLog10PerYear - std::log10(2.0) / 2.0) < 1e-12);
        QVERIFY(std::abs(f.r2 - 1.0) < 1e-12);
        QCOMPARE(f.points, 6);
        QVERIFY(std::abs(f.at(2000.0) - 1.0) < 1e-9);
        QVERIFY(std::abs(f.at(2010.0) / 32.0 - 1.0) < 1e-9);

        // Points marked out of the fit do not move it.
        pts.push_back(point("outlier", 2005.0, 1e12, false));
        QVERIFY(std::abs(fitExponential(pts).factorPer2Years - 2.0) < 1e-9);
        QCOMPARE(fitExponential(pts).points, 6);

        // A shrinking series fits a factor below 1.
        std::vector<TrendPoint> down = {point("a", 2000, 100), point("b", 2002, 10), point("c", 2004, 1)};
        QVERIFY(std::abs(fitExponential(down).factorPer2Years - 0.1) < 1e-12);
    }

    void fitRejectsUnfittable()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fitExponential({point("a", 2000, 1)}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fitExponential({point("a", 2000, 1), point("b", 2000, 2)}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fitExponential({point("a", 2000, 1), point("b", 2001, 0)}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fitExponential({point("a", 2000, 1), point("b", 2001, 2, false)}));
    }

    void normalize()
    {
        TrendSeries s;
        s.id = "s";
        s.name = "S";
        s.unit = "B/s";
        s.fitted = true;
        s.points = {point("old", 1999.5, 5), point("A", 2001.0, 20), point("B", 2003.0, 80), point("C", 2005.0, 160)};
        const TrendSeries n = memwall::core::normalize(s, 2000.0);
        QCOMPARE(n.points.size(), std::size_t(4));
        QCOMPARE(n.points[0].value, 0.25); // earlier points keep their ratio
        QCOMPARE(n.points[1].value, 1.0);  // the first point at or after the base year is the reference
        QCOMPARE(n.points[2].value, 4.0);
        QCOMPARE(n.points[3].value, 8.0);
        QCOMPARE(*n.points[2].normalized, 4.0);
        QCOMPARE(n.unit, std::string("x A (2001)"));
        QCOMPARE(n.points[2].name, std::string("B"));
        // A point exactly at the base year is the reference.
        QCOMPARE(memwall::core::normalize(s, 2003.0).points[2].value, 1.0);
        // Growth is unchanged by normalising.
        QVERIFY(std::abs(fitExponential(n.points).factorPer2Years - fitExponential(s.points).factorPer2Years) < 1e-12);
        // The reference is the earliest point at or after the base year even if the points are unsorted.
        std::swap(s.points[1], s.points[3]);
        QCOMPARE(memwall::core::normalize(s, 2000.0).unit, std::string("x A (2001)"));
        // No point at or after the base year: no points.
        QVERIFY(memwall::core::normalize(s, 2010.0).points.empty());
        // The shipped FLOPS series normalised to its first year reproduces the figure's normalized values.
        const TrendSeries *flops = m_data.find("hw_peak_flops");
        const TrendSeries nf = memwall::core::normalize(*flops, 1990.0);
        QCOMPARE(nf.points.front().value, 1.0);
        QVERIFY(std::abs(nf.points.back().value / *flops->points.back().normalized - 1.0) < 1e-3);
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("pointer");  // JSON pointer to change in validFile()
        QTest::addColumn<QString>("newValue"); // JSON text; empty = remove the key
        QTest::addColumn<QString>("message");
        QTest::newRow("missing points") << "/series/0/points"
                                        << ""
                                        << "bad.json: series[0].points: missing";
        QTest::newRow("non-numeric year") << "/series/0/points/1/year"
                                          << "\"2002\""
                                          << "bad.json: series[0].points[1].year: expected a number, got \"2002\"";
        QTest::newRow("zero value") << "/series/0/points/2/value"
                                    << "0"
                                    << "bad.json: series[0].points[2].value: must be positive (growth is fitted on "
                                       "a log scale), got 0";
        QTest::newRow("negative value") << "/series/0/points/0/value"
                                        << "-3.5"
                                        << "bad.json: series[0].points[0].value: must be positive (growth is fitted "
                                           "on a log scale), got -3.5";
        QTest::newRow("points not an array") << "/series/0/points"
                                             << "{}"
                                             << "bad.json: series[0].points: expected an array, got {}";
        QTest::newRow("empty points") << "/series/0/points"
                                      << "[]"
                                      << "bad.json: series[0].points: must not be empty";
        QTest::newRow("missing source") << "/series/0/source"
                                        << ""
                                        << "bad.json: series[0].source: missing";
        QTest::newRow("empty source") << "/series/0/source"
                                      << "\" \""
                                      << "bad.json: series[0].source: must not be empty";
        QTest::newRow("unknown field") << "/series/0/points/0/valeu"
                                       << "1"
                                       << "bad.json: series[0].points[0].valeu: unknown field";
        QTest::newRow("wrong kind") << "/kind"
                                    << "\"hardware\""
                                    << "bad.json: kind: expected \"trends\", got \"hardware\"";
        QTest::newRow("fit flag not boolean") << "/series/0/fit"
                                              << "\"yes\""
                                              << "bad.json: series[0].fit: expected true or false, got \"yes\"";
        QTest::newRow("fitted series with one point in the fit")
            << "/series/0/points"
            << R"([{"name": "a", "year": 2000, "value": 1}, {"name": "b", "year": 2001, "value": 2, "in_fit": false}])"
            << "bad.json: series[0].points: a fitted series (\"fit\": true) needs at least two points with in_fit "
               "true and different years, got 1";
        QTest::newRow("bad id") << "/series/0/id"
                                << "\"Peak FLOPS\""
                                << "bad.json: series[0].id: must be lower-case letters, digits, underscores and "
                                   "dashes, got \"Peak FLOPS\"";
    }

    void malformed()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, newValue);
        QFETCH(QString, message);
        json j = validFile();
        const json::json_pointer ptr(pointer.toStdString());
        if (newValue.isEmpty())
            j.at(ptr.parent_pointer()).erase(ptr.back());
        else
            j[ptr] = json::parse(newValue.toStdString());
        try {
            memwall::core::trendsFromJson(j, "bad.json");
            QFAIL("no error");
        } catch (const InputError &e) {
            QCOMPARE(QString::fromStdString(e.what()), message);
        }
    }

    void duplicateIds()
    {
        json j = validFile();
        j["series"].push_back(j["series"][0]);
        try {
            memwall::core::trendsFromJson(j, "bad.json");
            QFAIL("no error");
        } catch (const InputError &e) {
            QCOMPARE(QString::fromStdString(e.what()), QString("bad.json: series[1].id: duplicate series id \"demo\""));
        }
    }

    void validFileParses()
    {
        const TrendData d = memwall::core::trendsFromJson(validFile(), "ok.json");
        QCOMPARE(d.series.size(), std::size_t(1));
        QVERIFY(std::abs(fitExponential(d.series[0].points).factorPer2Years - 3.0) < 1e-12);
        QCOMPARE(d.series[0].file, std::string("ok.json"));
    }

    void jsonContract()
    {
        const json j = memwall::core::toJson(m_data);
        QVERIFY(j.at("series").is_array());
        QVERIFY(j.at("other_series").is_array());
        QStringList ids;
        for (const json &s : j.at("series")) {
            for (const char *k : {"id", "name", "unit", "source"})
                QVERIFY2(s.at(k).is_string(), k);
            QVERIFY(s.at("factor_per_2_years").is_number());
            QVERIFY(s.at("r2").is_number());
            QVERIFY(s.at("points").is_array());
            QVERIFY(!s.at("points").empty());
            for (const json &p : s.at("points")) {
                QVERIFY(p.at("name").is_string());
                QVERIFY(p.at("year").is_number());
                QVERIFY(p.at("value").is_number());
            }
            ids << QString::fromStdString(s.at("id").get<std::string>());
        }
        for (const char *id :
             {"hw_peak_flops", "dram_bandwidth", "interconnect_bandwidth", "transformer_params", "training_compute"})
            QVERIFY2(ids.contains(id), id);
        for (const json &s : j.at("other_series")) {
            QVERIFY(!s.contains("factor_per_2_years"));
            QCOMPARE(s.at("fitted").get<bool>(), false);
        }
        // The JSON factor is the fit of the same data (no rounding).
        for (const json &s : j.at("series"))
            if (s.at("id") == "training_compute")
                QCOMPARE(s.at("factor_per_2_years").get<double>(),
                         fitExponential(m_data.find("training_compute")->points).factorPer2Years);
    }

private:
    TrendData m_data;
};

QTEST_GUILESS_MAIN(TstTrends)
#include "tst_trends.moc"
