#include "ui/dialogs/aboutdialog.h"

#include "ui/dialogs/presetfiles.h"

#include <memwall_version.h>

#include <QDialogButtonBox>
#include <QIcon>
#include <QLabel>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtGlobal>

namespace memwall::ui {

namespace {

QString esc(const std::string &s) { return QString::fromStdString(s).toHtmlEscaped(); }

/// Escapes `text` and turns the URLs (and bare "domain.tld/path" references) in it into links.
QString linkify(const std::string &text)
{
    static const QRegularExpression url(QStringLiteral(
        R"((https?://[^\s,;()]+[^\s,;().]|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|ai|dev|edu)/[^\s,;()]*[^\s,;().]))"));
    const QString s = QString::fromStdString(text);
    QString out;
    qsizetype last = 0;
    for (auto it = url.globalMatch(s); it.hasNext();) {
        const auto m = it.next();
        out += s.mid(last, m.capturedStart() - last).toHtmlEscaped();
        const QString u = m.captured();
        const QString href = u.startsWith("http") ? u : QStringLiteral("https://") + u;
        out += QStringLiteral("<a href=\"%1\">%2</a>").arg(href.toHtmlEscaped(), u.toHtmlEscaped());
        last = m.capturedEnd();
    }
    out += s.mid(last).toHtmlEscaped();
    return out;
}

/// The first published source of a device preset: its first dense peak (the datasheet), else its main memory.
std::string firstSource(const core::HardwareSpec &hw)
{
    for (core::DType t : core::kAllDTypes)
        if (const auto &p = hw.peakFlops[core::index(t)])
            return p->source;
    return hw.memory.empty() ? hw.year.source : hw.mainMemory().bandwidthBytesPerS.source;
}

struct Paper
{
    const char *authors, *title, *venue, *url, *usedFor;
};

} // namespace

QString AboutDialog::html(const core::PresetLibrary &presets)
{
    static const Paper papers[] = {
        {"A. Gholami, Z. Yao, S. Kim, C. Hooper, M. W. Mahoney, K. Keutzer", "AI and Memory Wall",
         "IEEE Micro 44(3), 2024; arXiv:2403.14123", "https://arxiv.org/abs/2403.14123",
         "the thesis and the trend rates: peak FLOPS ×3.0, DRAM bandwidth ×1.6, interconnect bandwidth ×1.4 every two "
         "years"},
        {"S. Williams, A. Waterman, D. Patterson",
         "Roofline: An Insightful Visual Performance Model for Multicore Architectures",
         "Communications of the ACM 52(4), 2009", "https://doi.org/10.1145/1498765.1498785",
         "the roofline model: attainable = min(peak, intensity × bandwidth), ridge point = peak / bandwidth"},
        {"W. Kwon, Z. Li, S. Zhuang, Y. Sheng, L. Zheng, C. H. Yu, J. E. Gonzalez, H. Zhang, I. Stoica",
         "Efficient Memory Management for Large Language Model Serving with PagedAttention (vLLM)",
         "SOSP 2023; arXiv:2309.06180", "https://arxiv.org/abs/2309.06180",
         "the KV-cache figure: OPT-13B needs 819 kB (their \"800 KB\", binary) per token at FP16"},
        {"V. Korthikanti, J. Casper, S. Lym, L. McAfee, M. Andersch, M. Shoeybi, B. Catanzaro",
         "Reducing Activation Recomputation in Large Transformer Models", "arXiv:2205.05198, 2022 (MLSys 2023)",
         "https://arxiv.org/abs/2205.05198", "activation memory in training and selective / full recomputation"},
        {"A. Ivanov, N. Dryden, T. Ben-Nun, S. Li, T. Hoefler",
         "Data Movement Is All You Need: A Case Study on Optimizing Transformers", "MLSys 2021; arXiv:2007.00072",
         "https://arxiv.org/abs/2007.00072",
         "the operator breakdown: matrix multiplications are 99.8 % of the FLOPs but only 61 % of the runtime"},
        {"T. Dao, D. Y. Fu, S. Ermon, A. Rudra, C. Ré",
         "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
         "NeurIPS 2022; arXiv:2205.14135", "https://arxiv.org/abs/2205.14135",
         "fused attention: no round trip of the score matrix to memory"},
    };

    QString h;
    h += QStringLiteral("<h2>MemWall %1</h2>").arg(QStringLiteral(MEMWALL_VERSION));
    h += QObject::tr("<p><b>See the AI memory wall.</b> MemWall shows where a transformer's work lands on a device's "
                     "roofline, what fills each level of its memory hierarchy, how batch size, sequence length, "
                     "precision and parallelism move both, and why compute has outgrown memory and interconnect "
                     "bandwidth. Every number it uses carries its public source.</p>");
    h += QObject::tr("<p>Licensed under the MIT license. Built with Qt %1 (running on %2) and nlohmann/json.</p>")
             .arg(QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()));

    h += QObject::tr("<h3>Papers the numbers come from</h3><ol>");
    for (const Paper &p : papers)
        h += QStringLiteral("<li>%1. <a href=\"%2\"><i>%3</i></a>. %4.<br/><small>Used for %5.</small></li>")
                 .arg(QString::fromUtf8(p.authors).toHtmlEscaped(), QString::fromLatin1(p.url),
                      QString::fromUtf8(p.title).toHtmlEscaped(), QString::fromUtf8(p.venue).toHtmlEscaped(),
                      QString::fromUtf8(p.usedFor).toHtmlEscaped());
    h += QStringLiteral("</ol>");

    std::size_t userHw = 0, userModels = 0;
    for (const auto &hw : presets.hardware())
        userHw += isBuiltinPreset(hw.sourceFile) ? 0 : 1;
    for (const auto &m : presets.models())
        userModels += isBuiltinPreset(m.sourceFile) ? 0 : 1;
    h += QObject::tr("<h3>Presets</h3><p>%1 device presets and %2 model presets loaded (%3 and %4 of them from your "
                     "own folder <code>%5</code>)%6.</p>")
             .arg(presets.hardware().size())
             .arg(presets.models().size())
             .arg(userHw)
             .arg(userModels)
             .arg(userPresetDir().toHtmlEscaped(),
                  presets.issues().empty()
                      ? QString()
                      : QObject::tr("; %1 file(s) skipped or duplicated").arg(presets.issues().size()));

    h += QObject::tr("<h4>Devices: vendor datasheets</h4><p><small>Each device with the first source of its preset "
                     "file; every other number in the file names its own source.</small></p><ul>");
    for (const auto &hw : presets.hardware())
        h += QStringLiteral("<li><b>%1</b> (<code>%2</code>): %3</li>")
                 .arg(esc(hw.name), esc(hw.id), linkify(firstSource(hw)));
    h += QStringLiteral("</ul>");

    h += QObject::tr("<h4>Models: Hugging Face model cards and config.json</h4><p><small>Shapes are read from each "
                     "model's published <code>config.json</code> (or the paper where none exists); parameter counts "
                     "are checked against the model cards.</small></p><ul>");
    for (const auto &m : presets.models())
        h += QStringLiteral("<li><b>%1</b> (<code>%2</code>): %3</li>")
                 .arg(esc(m.shape.name), esc(m.shape.id), linkify(m.source));
    h += QStringLiteral("</ul>");
    return h;
}

AboutDialog::AboutDialog(const core::PresetLibrary &presets, QWidget *parent)
    : QDialog(parent), m_browser(new QTextBrowser(this))
{
    setWindowTitle(tr("About MemWall"));
    auto *layout = new QVBoxLayout(this);
    auto *icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/memwall/icons/memwall.svg")).pixmap(64, 64));
    icon->setAlignment(Qt::AlignLeft);
    layout->addWidget(icon);
    m_browser->setObjectName("aboutText");
    m_browser->setOpenExternalLinks(true);
    m_browser->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_browser->setHtml(html(presets));
    m_browser->setToolTip(tr("Select and copy any text; links open in your browser"));
    layout->addWidget(m_browser, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(760, 640);
}

} // namespace memwall::ui
