// A planted raw call for the number-format check's own test (tests/CMakeLists.txt: number_format_check_catches_raw):
// .ci/check-number-format.sh must fail on this folder. Not compiled.
#include <QString>

QString label(double share, double ms)
{
    // ".arg(ms, 0, 'g', 3)" in a comment is not flagged
    return QString::number(share * 100, 'f', 1) + QStringLiteral(" % in %1 ms").arg(ms, 0, 'g', 3);
}
