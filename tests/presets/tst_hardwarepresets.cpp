// The built-in hardware preset library (presets/hardware/*.json, schema in presets/README.md).
// Loads what is compiled into memwall_core and checks: every file loads without an issue; the required devices exist;
// the published figures each preset must reproduce (one data row per figure, named after it, relative tolerance
// 1e-3); dense peaks are not the 2:4-sparsity headline numbers; every Sourced number carries a source; memory levels
// are ordered (capacity rising, bandwidth falling); main memory is the HBM/GDDR/DDR level (on-wafer SRAM for
// Cerebras); interconnect bandwidths are per direction; achievable fractions are fractions.
#include "core/io/presets.h"

#include <QtTest>

#include <algorithm>
#include <iterator>

#include <string>
#include <vector>

namespace memwall::core {

namespace {

enum class Quantity { Peak, MainCapacity, MainBandwidth, Ridge, LinkBandwidth };

const char *const kRequiredIds[] = {
    "p100-sxm2", "v100-sxm2",     "a100-40gb-sxm", "a100-80gb-sxm",  "h100-sxm",      "h100-pcie",     "h200-sxm",
    "b200",      "mi250x",        "mi300x",        "tpu-v4",         "tpu-v5e",       "tpu-v5p",       "gaudi2",
    "gaudi3",    "cerebras-wse2", "rtx-4090",      "xeon-gold-6242", "amd-epyc-9654", "gb300",         "gb200-nvl72",
    "mi325x",    "mi355x",        "tpu-v6e",       "tpu7x",          "groq-lpu",      "cerebras-wse3", "rtx-5090",
    "l40s",      "h20",           "b300"};

bool closeTo(double actual, double expected) { return qAbs(actual - expected) <= 1e-3 * qAbs(expected); }

} // namespace

class TestHardwarePresets : public QObject
{
    Q_OBJECT

    PresetLibrary lib;

    const HardwareSpec &device(const QString &id)
    {
        const HardwareSpec *hw = lib.findHardware(id.toStdString());
        if (!hw)
            qFatal("hardware preset '%s' is missing", qPrintable(id));
        return *hw;
    }

    static void checkSourced(const std::string &where, const Sourced &s)
    {
        QVERIFY2(!s.source.empty() && s.source.find_first_not_of(" \t") != std::string::npos,
                 (where + ": empty source").c_str());
        QVERIFY2(s.value > 0.0, (where + ": value must be positive").c_str());
    }

private slots:
    void initTestCase() { lib.loadBuiltin(); }

    void loadsWithoutIssues()
    {
        for (const PresetIssue &i : lib.issues())
            qWarning("%s: %s", i.file.c_str(), i.message.c_str());
        QVERIFY(lib.issues().empty());
    }

    void hasEveryRequiredDevice() { QVERIFY(lib.hardware().size() >= std::size(kRequiredIds)); }

    void requiredDevicesExist_data()
    {
        QTest::addColumn<QString>("id");
        for (const char *id : kRequiredIds)
            QTest::newRow(id) << QString::fromLatin1(id);
    }
    void requiredDevicesExist()
    {
        QFETCH(QString, id);
        QVERIFY2(lib.findHardware(id.toStdString()) != nullptr, qPrintable("missing hardware preset " + id));
    }

    // One row per published figure. `value` is what the row name states, in SI base units. Long because it is a
    // table: one row per datasheet or microbenchmark figure of every device.
    void publishedFigures_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("quantity");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<double>("value");
        const auto peak = [](const char *name, const char *id, DType t, double v) {
            QTest::newRow(name) << QString::fromLatin1(id) << int(Quantity::Peak) << int(t) << v;
        };
        const auto cap = [](const char *name, const char *id, double v) {
            QTest::newRow(name) << QString::fromLatin1(id) << int(Quantity::MainCapacity) << 0 << v;
        };
        const auto bw = [](const char *name, const char *id, double v) {
            QTest::newRow(name) << QString::fromLatin1(id) << int(Quantity::MainBandwidth) << 0 << v;
        };
        const auto ridge = [](const char *name, const char *id, DType t, double v) {
            QTest::newRow(name) << QString::fromLatin1(id) << int(Quantity::Ridge) << int(t) << v;
        };
        const auto link = [](const char *name, const char *id, double v) {
            QTest::newRow(name) << QString::fromLatin1(id) << int(Quantity::LinkBandwidth) << 0 << v;
        };

        // Dense peaks (datasheets; NVIDIA/AMD headline numbers with sparsity are 2x these).
        peak("P100 SXM2 FP16 = 21.2 TFLOPS", "p100-sxm2", DType::FP16, 21.2e12);
        peak("P100 SXM2 FP32 = 10.6 TFLOPS", "p100-sxm2", DType::FP32, 10.6e12);
        peak("V100 SXM2 tensor FP16 = 125 TFLOPS", "v100-sxm2", DType::FP16, 125e12);
        peak("V100 SXM2 FP64 = 7.8 TFLOPS", "v100-sxm2", DType::FP64, 7.8e12);
        peak("A100 40GB dense FP16 = 312 TFLOPS", "a100-40gb-sxm", DType::FP16, 312e12);
        peak("A100 80GB dense BF16 = 312 TFLOPS", "a100-80gb-sxm", DType::BF16, 312e12);
        peak("A100 dense TF32 = 156 TFLOPS", "a100-80gb-sxm", DType::TF32, 156e12);
        peak("A100 dense INT8 = 624 TOPS", "a100-40gb-sxm", DType::INT8, 624e12);
        peak("H100 SXM dense FP16 = 989.4 TFLOPS", "h100-sxm", DType::FP16, 989.4e12);
        peak("H100 SXM dense BF16 = 989.4 TFLOPS", "h100-sxm", DType::BF16, 989.4e12);
        peak("H100 SXM dense FP8 = 1978.9 TFLOPS", "h100-sxm", DType::FP8, 1978.9e12);
        peak("H100 SXM dense TF32 = 494.7 TFLOPS", "h100-sxm", DType::TF32, 494.7e12);
        peak("H100 SXM FP32 = 66.9 TFLOPS", "h100-sxm", DType::FP32, 66.9e12);
        peak("H100 PCIe dense FP16 = 756.5 TFLOPS (1513 sparse / 2)", "h100-pcie", DType::FP16, 756.5e12);
        peak("H200 dense FP16 = 989.4 TFLOPS (same die as H100)", "h200-sxm", DType::FP16, 989.4e12);
        peak("B200 (HGX) dense BF16 = 2.25 PFLOPS", "b200", DType::BF16, 2.25e15);
        peak("B200 (HGX) dense FP8 = 4.5 PFLOPS", "b200", DType::FP8, 4.5e15);
        peak("MI250X FP16 = 383 TFLOPS", "mi250x", DType::FP16, 383e12);
        peak("MI300X dense FP16 = 1307.4 TFLOPS", "mi300x", DType::FP16, 1307.4e12);
        peak("MI300X dense FP8 = 2614.9 TFLOPS", "mi300x", DType::FP8, 2614.9e12);
        peak("TPU v4 BF16 = 275 TFLOPS", "tpu-v4", DType::BF16, 275e12);
        peak("TPU v5e BF16 = 197 TFLOPS", "tpu-v5e", DType::BF16, 197e12);
        peak("TPU v5e INT8 = 393 TOPS", "tpu-v5e", DType::INT8, 393e12);
        peak("TPU v5p BF16 = 459 TFLOPS", "tpu-v5p", DType::BF16, 459e12);
        peak("TPU v5p FP8 = 459 TFLOPS, no faster than BF16", "tpu-v5p", DType::FP8, 459e12);
        peak("Gaudi2 BF16 = 432 TFLOPS", "gaudi2", DType::BF16, 432e12);
        peak("Gaudi 3 BF16 = 1835 TFLOPS", "gaudi3", DType::BF16, 1835e12);
        peak("RTX 4090 dense FP16 (FP32 accumulate) = 165.2 TFLOPS", "rtx-4090", DType::FP16, 165.2e12);
        peak("RTX 4090 FP32 = 82.6 TFLOPS", "rtx-4090", DType::FP32, 82.6e12);
        peak("Xeon Gold 6242 FP32 = 16 cores x 64 FLOP x 2.8 GHz = 2.87 TFLOPS", "xeon-gold-6242", DType::FP32,
             16 * 64 * 2.8e9);
        // 2024-2026 devices (issue #17). FP4/FP6 are dense NVFP4/MXFP4/MXFP6 rates.
        peak("GB300 dense FP4 = 1,080 PFLOPS per NVL72 rack / 72 = 15 PFLOPS", "gb300", DType::FP4, 15e15);
        peak("GB300 dense FP8 = 720 PFLOPS sparse per rack / 72 / 2 = 5 PFLOPS", "gb300", DType::FP8, 5e15);
        peak("B300 (HGX) dense FP8 = 72 PFLOPS sparse per 8 GPUs / 8 / 2 = 4.5 PFLOPS", "b300", DType::FP8, 4.5e15);
        peak("B300 (HGX) dense BF16 = 36 PFLOPS sparse per 8 GPUs / 8 / 2 = 2.25 PFLOPS", "b300", DType::BF16, 2.25e15);
        peak("GB300 dense INT8 = 24 POPS sparse per rack / 72 / 2 = 0.167 POPS", "gb300", DType::INT8, 0.1667e15);
        peak("GB200 NVL72 dense FP4 = 1,440 PFLOPS sparse per rack / 72 / 2 = 10 PFLOPS", "gb200-nvl72", DType::FP4,
             10e15);
        peak("B200 (HGX) dense FP4 = 72 PFLOPS per 8 GPUs = 9 PFLOPS", "b200", DType::FP4, 9e15);
        peak("MI325X dense FP8 = 2614.9 TFLOPS", "mi325x", DType::FP8, 2614.9e12);
        peak("MI355X dense FP4 = 256 CUs x 16384 x 2.4 GHz = 10.07 PFLOPS (20.1 sparse / 2)", "mi355x", DType::FP4,
             256 * 16384 * 2.4e9);
        peak("TPU v6e BF16 = 918 TFLOPS", "tpu-v6e", DType::BF16, 918e12);
        peak("TPU v6e FP8 = 918 TFLOPS, no faster than BF16", "tpu-v6e", DType::FP8, 918e12);
        peak("TPU7x FP8 = 4614 TFLOPS", "tpu7x", DType::FP8, 4614e12);
        peak("Groq LPU INT8 = 750 TOPS", "groq-lpu", DType::INT8, 750e12);
        peak("L40S dense FP8 = 733 TFLOPS (1,466 sparse)", "l40s", DType::FP8, 733e12);
        peak("RTX 5090 dense FP4 = 3,352 sparse / 2 = 1,676 TFLOPS", "rtx-5090", DType::FP4, 1676e12);
        peak("H20 dense FP16 = 148 TFLOPS", "h20", DType::FP16, 148e12);
        peak("EPYC 9654 FP64 = 96 cores x 16 FLOP x 2.4 GHz = 3.69 TFLOPS", "amd-epyc-9654", DType::FP64,
             96 * 16 * 2.4e9);

        // Main memory capacity (vendor decimal GB unless the vendor says GiB).
        cap("P100 HBM2 = 16 GB", "p100-sxm2", 16e9);
        cap("V100 HBM2 = 32 GB", "v100-sxm2", 32e9);
        cap("A100 40GB HBM2 = 40 GB", "a100-40gb-sxm", 40e9);
        cap("A100 80GB HBM2e = 80 GB", "a100-80gb-sxm", 80e9);
        cap("H100 SXM HBM3 = 80 GB", "h100-sxm", 80e9);
        cap("H200 HBM3e = 141 GB", "h200-sxm", 141e9);
        cap("B200 (HGX) HBM3e = 180 GB per GPU", "b200", 180e9);
        cap("MI250X HBM2e = 128 GB", "mi250x", 128e9);
        cap("MI300X HBM3 = 192 GB", "mi300x", 192e9);
        cap("TPU v4 HBM2 = 32 GiB", "tpu-v4", 32.0 * 1024 * 1024 * 1024);
        cap("TPU v5e HBM2 = 16 GB", "tpu-v5e", 16e9);
        cap("TPU v5p HBM2e = 95 GB", "tpu-v5p", 95e9);
        cap("Gaudi2 HBM2E = 96 GB", "gaudi2", 96e9);
        cap("Gaudi 3 HBM2e = 128 GB", "gaudi3", 128e9);
        cap("Cerebras WSE-2 on-wafer SRAM = 40 GB (main memory, no DRAM)", "cerebras-wse2", 40e9);
        cap("RTX 4090 GDDR6X = 24 GB", "rtx-4090", 24e9);
        cap("GB300 HBM3e = 288 GB", "gb300", 288e9);
        cap("B300 (HGX) HBM3e = 288 GB", "b300", 288e9);
        cap("GB200 NVL72 HBM3e = 13.4 TB / 72 = 186 GB per GPU", "gb200-nvl72", 186e9);
        cap("MI325X HBM3e = 256 GB", "mi325x", 256e9);
        cap("MI355X HBM3e = 288 GB", "mi355x", 288e9);
        cap("TPU7x HBM = 192 GiB", "tpu7x", 192.0 * 1024 * 1024 * 1024);
        cap("Groq LPU on-chip SRAM = 230 MB (main memory, no DRAM)", "groq-lpu", 230e6);
        cap("Cerebras WSE-3 on-wafer SRAM = 44 GB", "cerebras-wse3", 44e9);
        cap("H20 HBM3 = 96 GB", "h20", 96e9);

        // Main memory bandwidth.
        bw("P100 SXM2 HBM2 = 732 GB/s", "p100-sxm2", 732e9);
        bw("V100 HBM2 = 900 GB/s", "v100-sxm2", 900e9);
        bw("A100 40GB HBM2 = 1555 GB/s", "a100-40gb-sxm", 1555e9);
        bw("A100 80GB HBM2e = 2039 GB/s", "a100-80gb-sxm", 2039e9);
        bw("H100 SXM HBM3 = 3.35 TB/s", "h100-sxm", 3.35e12);
        bw("H100 PCIe HBM2e = 2.0 TB/s", "h100-pcie", 2.0e12);
        bw("H200 HBM3e = 4.8 TB/s", "h200-sxm", 4.8e12);
        bw("B200 HBM3e = 8 TB/s", "b200", 8e12);
        bw("MI300X HBM3 = 5.3 TB/s", "mi300x", 5.3e12);
        bw("TPU v4 HBM2 = 1200 GB/s", "tpu-v4", 1.2e12);
        bw("TPU v5e HBM2 = 819 GB/s", "tpu-v5e", 819e9);
        bw("TPU v5p HBM2e = 2765 GB/s", "tpu-v5p", 2765e9);
        bw("Gaudi2 HBM2E = 2.46 TB/s", "gaudi2", 2.46e12);
        bw("Cerebras WSE-2 SRAM = 20 PB/s", "cerebras-wse2", 20e15);
        bw("RTX 4090 GDDR6X = 1008 GB/s", "rtx-4090", 1008e9);
        bw("GB300 HBM3e = 576 TB/s per rack / 72 = 8 TB/s", "gb300", 8e12);
        bw("B300 (HGX) HBM3e = 62 TB/s per 8 GPUs / 8 = 7.75 TB/s", "b300", 7.75e12);
        bw("MI325X HBM3e = 6 TB/s", "mi325x", 6e12);
        bw("MI355X HBM3e = 8 TB/s", "mi355x", 8e12);
        bw("TPU v6e HBM = 1638 GB/s", "tpu-v6e", 1638e9);
        bw("Groq LPU SRAM = 80 TB/s", "groq-lpu", 80e12);
        bw("Cerebras WSE-3 SRAM = 21 PB/s", "cerebras-wse3", 21e15);
        bw("RTX 5090 GDDR7 = 1792 GB/s", "rtx-5090", 1792e9);
        bw("L40S GDDR6 = 864 GB/s", "l40s", 864e9);
        bw("H20 HBM3 = 4.0 TB/s", "h20", 4e12);
        bw("Xeon Gold 6242 DDR4-2933 x 6 channels = 140.8 GB/s", "xeon-gold-6242", 6 * 2933.33e6 * 8);
        bw("EPYC 9654 DDR5-4800 x 12 channels = 460.8 GB/s", "amd-epyc-9654", 460.8e9);

        // Ridge points against main memory (FLOP/byte).
        ridge("H100 SXM FP16 ridge = 989.4/3.35 ~ 295 FLOP/byte", "h100-sxm", DType::FP16, 989.4e12 / 3.35e12);
        ridge("H200 FP16 ridge = 989.4/4.8 ~ 206 FLOP/byte", "h200-sxm", DType::FP16, 989.4e12 / 4.8e12);
        ridge("A100 80GB FP16 ridge = 312/2.039 ~ 153 FLOP/byte", "a100-80gb-sxm", DType::FP16, 312e12 / 2.039e12);
        ridge("MI300X FP16 ridge = 1307.4/5.3 ~ 247 FLOP/byte", "mi300x", DType::FP16, 1307.4e12 / 5.3e12);
        ridge("Xeon Gold 6242 FP32 ridge ~ 20 FLOP/byte", "xeon-gold-6242", DType::FP32, 2.8672e12 / 140.8e9);

        // Scale-up links, per direction per device.
        link("P100 NVLink 1.0 = 80 GB/s per direction (160 total)", "p100-sxm2", 80e9);
        link("V100 NVLink 2.0 = 150 GB/s per direction (300 total)", "v100-sxm2", 150e9);
        link("A100 NVLink 3.0 = 300 GB/s per direction (600 total)", "a100-80gb-sxm", 300e9);
        link("H100 NVLink 4.0 = 450 GB/s per direction (900 total)", "h100-sxm", 450e9);
        link("B200 NVLink 5 = 900 GB/s per direction (1.8 TB/s total)", "b200", 900e9);
        link("MI300X Infinity Fabric = 448 GB/s per direction (896 total)", "mi300x", 448e9);
        link("TPU v5e ICI = 200 GB/s per direction (400 bidirectional)", "tpu-v5e", 200e9);
        link("TPU v5p ICI = 600 GB/s per direction (1200 bidirectional)", "tpu-v5p", 600e9);
        link("GB200 NVL72 NVLink 5 = 900 GB/s per direction (1.8 TB/s total)", "gb200-nvl72", 900e9);
        link("TPU v6e ICI = 400 GB/s per direction (800 bidirectional)", "tpu-v6e", 400e9);
        link("RTX 4090 has no NVLink: PCIe 4.0 x16 = 31.5 GB/s per direction", "rtx-4090", 31.5e9);
    }
    void publishedFigures()
    {
        QFETCH(QString, id);
        QFETCH(int, quantity);
        QFETCH(int, dtype);
        QFETCH(double, value);
        const HardwareSpec &hw = device(id);
        const auto t = static_cast<DType>(dtype);
        double actual = 0.0;
        switch (static_cast<Quantity>(quantity)) {
        case Quantity::Peak: actual = hw.peak(t); break;
        case Quantity::MainCapacity: actual = hw.mainMemory().capacityBytes.value; break;
        case Quantity::MainBandwidth: actual = hw.mainMemory().bandwidthBytesPerS.value; break;
        case Quantity::Ridge: actual = hw.ridge(t); break;
        case Quantity::LinkBandwidth:
            QVERIFY(hw.scaleUpLink() != nullptr);
            actual = hw.scaleUpLink()->bandwidthBytesPerS.value;
            break;
        }
        QVERIFY2(closeTo(actual, value),
                 qPrintable(
                     QStringLiteral("%1: got %2, published %3").arg(id).arg(actual, 0, 'g', 8).arg(value, 0, 'g', 8)));
    }

    // The classic trap: the datasheet headline for Hopper/Ampere is the 2:4-sparse figure.
    void densePeaksAreNotSparseHeadlines_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<double>("sparseHeadline");
        QTest::newRow("H100 SXM FP16 is not 1979 TFLOPS")
            << QStringLiteral("h100-sxm") << int(DType::FP16) << 1978.9e12;
        QTest::newRow("H100 SXM FP8 is not 3958 TFLOPS") << QStringLiteral("h100-sxm") << int(DType::FP8) << 3957.8e12;
        QTest::newRow("A100 FP16 is not 624 TFLOPS") << QStringLiteral("a100-80gb-sxm") << int(DType::FP16) << 624e12;
        QTest::newRow("MI300X FP16 is not 2615 TFLOPS") << QStringLiteral("mi300x") << int(DType::FP16) << 2614.9e12;
        QTest::newRow("B200 FP8 is not 9 PFLOPS") << QStringLiteral("b200") << int(DType::FP8) << 9e15;
        QTest::newRow("GB200 NVL72 FP4 is not 1440/72 = 20 PFLOPS")
            << QStringLiteral("gb200-nvl72") << int(DType::FP4) << 20e15;
        QTest::newRow("L40S FP8 is not 1466 TFLOPS") << QStringLiteral("l40s") << int(DType::FP8) << 1466e12;
        QTest::newRow("MI355X FP4 is not 20.1 PFLOPS") << QStringLiteral("mi355x") << int(DType::FP4) << 20.1e15;
        QTest::newRow("RTX 5090 FP4 is not 3352 TFLOPS") << QStringLiteral("rtx-5090") << int(DType::FP4) << 3352e12;
        QTest::newRow("WSE-3 FP16 is not the 125 PFLOPS headline")
            << QStringLiteral("cerebras-wse3") << int(DType::FP16) << 125e15;
    }
    void densePeaksAreNotSparseHeadlines()
    {
        QFETCH(QString, id);
        QFETCH(int, dtype);
        QFETCH(double, sparseHeadline);
        QVERIFY(device(id).peak(static_cast<DType>(dtype)) < 0.75 * sparseHeadline);
    }

    void everySourcedNumberHasASource()
    {
        for (const HardwareSpec &hw : lib.hardware()) {
            const std::string p = hw.id + ".";
            checkSourced(p + "year", hw.year);
            if (hw.tdpW) // left out only where the vendor publishes no power figure, and the notes say so
                checkSourced(p + "tdp_w", *hw.tdpW);
            else
                QVERIFY2(hw.notes.find("tdp_w is left out") != std::string::npos, hw.id.c_str());
            if (hw.priceUsd)
                checkSourced(p + "price_usd", *hw.priceUsd);
            if (hw.usdPerHour)
                checkSourced(p + "usd_per_hour", *hw.usdPerHour);
            bool anyPeak = false;
            for (DType t : kAllDTypes)
                if (const auto &pk = hw.peakFlops[index(t)]) {
                    anyPeak = true;
                    checkSourced(p + "peak_flops." + std::string(toString(t)), *pk);
                }
            QVERIFY2(anyPeak, (hw.id + ": no peak").c_str());
            for (const MemoryLevel &m : hw.memory) {
                checkSourced(p + m.name + ".capacity_bytes", m.capacityBytes);
                checkSourced(p + m.name + ".bandwidth_bytes_per_s", m.bandwidthBytesPerS);
            }
            for (const Interconnect &l : hw.interconnects) {
                checkSourced(p + l.name + ".bandwidth_bytes_per_s", l.bandwidthBytesPerS);
                checkSourced(p + l.name + ".latency_s", l.latencyS);
                QVERIFY2(l.latencyS.value >= 1e-7 && l.latencyS.value <= 1e-4,
                         (hw.id + ": link latency outside 0.1 us .. 100 us").c_str());
                QVERIFY(l.maxDevices >= 0);
            }
            for (const auto &f : {hw.achievable.computeFraction, hw.achievable.memoryFraction})
                if (f) {
                    checkSourced(p + "achievable", *f);
                    QVERIFY2(f->value <= 1.0, (hw.id + ": achievable fraction above 1").c_str());
                }
            QVERIFY2(hw.year.value >= 2010 && hw.year.value <= 2030, (hw.id + ": implausible year").c_str());
        }
    }

    void memoryLevelsAreOrdered()
    {
        for (const HardwareSpec &hw : lib.hardware()) {
            QVERIFY2(!hw.memory.empty(), (hw.id + ": no memory levels").c_str());
            for (std::size_t i = 1; i < hw.memory.size(); ++i) {
                const MemoryLevel &a = hw.memory[i - 1];
                const MemoryLevel &b = hw.memory[i];
                if (b.kind != MemoryKind::Host)
                    QVERIFY2(b.capacityBytes.value > a.capacityBytes.value,
                             (hw.id + ": capacity of '" + b.name + "' does not rise").c_str());
                QVERIFY2(b.bandwidthBytesPerS.value < a.bandwidthBytesPerS.value,
                         (hw.id + ": bandwidth of '" + b.name + "' does not fall").c_str());
                QVERIFY2(int(b.kind) >= int(a.kind), (hw.id + ": kinds out of order at '" + b.name + "'").c_str());
            }
            const MemoryLevel &main = hw.mainMemory();
            const bool hasDram = std::any_of(hw.memory.begin(), hw.memory.end(),
                                             [](const MemoryLevel &m) { return m.kind == MemoryKind::Dram; });
            if (hw.category == "wafer-scale")
                QVERIFY2(main.kind == MemoryKind::Sram, (hw.id + ": main memory is not the on-wafer SRAM").c_str());
            else if (hasDram)
                QVERIFY2(main.kind == MemoryKind::Dram, (hw.id + ": main memory is not DRAM").c_str());
            else // an SRAM-only machine (Groq): the on-chip SRAM holds the weights
                QVERIFY2(main.kind == MemoryKind::Sram,
                         (hw.id + ": SRAM-only device without SRAM main memory").c_str());
        }
    }

    // Achievable fractions pinned to the microbenchmarks they come from.
    void achievableFractions_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("compute");
        QTest::addColumn<double>("value");
        QTest::newRow("H100 SXM BF16 GEMM 792.1 of 989.4 TFLOPS")
            << QStringLiteral("h100-sxm") << true << 792.1 / 989.4;
        QTest::newRow("H100 SXM triad 2.97 of 3.35 TB/s") << QStringLiteral("h100-sxm") << false << 2.97 / 3.35;
        QTest::newRow("A100 80GB triad 1.7 of 2.039 TB/s") << QStringLiteral("a100-80gb-sxm") << false << 1.7 / 2.039;
        QTest::newRow("MI300X BF16 GEMM 781.9 of 1307.4 TFLOPS") << QStringLiteral("mi300x") << true << 781.9 / 1307.4;
    }
    void achievableFractions()
    {
        QFETCH(QString, id);
        QFETCH(bool, compute);
        QFETCH(double, value);
        const HardwareSpec &hw = device(id);
        const auto &f = compute ? hw.achievable.computeFraction : hw.achievable.memoryFraction;
        QVERIFY(f.has_value());
        QVERIFY2(closeTo(f->value, value), qPrintable(QStringLiteral("got %1").arg(f->value)));
    }

    // The Blackwells' microbenchmarks (tools/achievable_tables.py), one figure per device written out by hand from
    // aiconfigurator's tables (ai-dynamo/aiconfigurator @ 095f58a5, systems/data/<device>/..., latencies in ms).
    void blackwellMicrobenchmarks()
    {
        const double cube = 2.0 * 8192 * 8192 * 8192; // FLOPs of a GEMM m = n = k = 8192: 1.0995e12
        // GB200 gemm/trtllm/1.3.0rc20/gemm_perf.parquet, bfloat16 8192^3: 0.7812293 ms -> 1407.4 TFLOPS of 2,500.
        const HardwareSpec &gb200 = device("gb200-nvl72");
        QVERIFY(closeTo(gb200.achievable.gemmFraction(DType::BF16, 8192), cube / 0.7812293e-3 / 2.5e15));
        // Azure ND GB200 v6, measured on the GB200's own GPUs: 7.35 of 8 TB/s.
        QVERIFY(gb200.achievable.memoryFraction && closeTo(gb200.achievable.memoryFraction->value, 7.35 / 8));
        // B300 fp8 8192^3: 0.4035333 ms, less compute_scale 0.0514037 ms and scale_matrix 0.0450272 ms at
        // m = k = 8192 (quantize/trtllm/1.3.0rc20) = 0.3071024 ms -> 3580.3 TFLOPS of 4,500.
        const HardwareSpec &b300 = device("b300");
        QVERIFY(closeTo(b300.achievable.gemmFraction(DType::FP8, 8192),
                        cube / ((0.4035333 - 0.0514037 - 0.0450272) * 1e-3) / 4.5e15));
        // B300's shortest BF16 GEMM (m=49, n=32, k=32): 0.0017248 ms, the kernel floor in a graph.
        QVERIFY(b300.achievable.kernelGraphsS && closeTo(b300.achievable.kernelGraphsS->value, 1.7248e-6));
        QVERIFY(!b300.achievable.memoryFraction); // no published copy-bandwidth measurement of a B300
        // GB300 comm/nccl/2.29.2/nccl_perf.parquet, all_reduce half on 4 GPUs (one NVL72 compute tray, the most the
        // table has), 2^28 elements = 2^29 B in 1.26831 ms: bus bandwidth 2^29 x 2 x 3/4 / 1.26831e-3 = 634.9 GB/s.
        const HardwareSpec &gb300 = device("gb300");
        QVERIFY(gb300.achievable.allReduceSweep);
        QCOMPARE(gb300.achievable.allReduceSweep->devices, 4);
        QCOMPARE(gb300.achievable.allReduceSweep->points.back().first, 536870912.0);
        QVERIFY(closeTo(gb300.achievable.allReduceSweep->points.back().second, 536870912.0 * 2 * 3 / 4 / 1.26831e-3));
    }
};

} // namespace memwall::core

QTEST_GUILESS_MAIN(memwall::core::TestHardwarePresets)
#include "tst_hardwarepresets.moc"
