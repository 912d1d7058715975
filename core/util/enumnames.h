#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace memwall::core {

/// An enum's values with the names files and the command line use for them.
template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

/// The value named `name` in `table`, or nothing when the name is not there.
template <typename E, std::size_t N>
std::optional<E> enumFromName(const NameTable<E, N> &table, std::string_view name)
{
    for (const auto &[value, n] : table)
        if (n == name)
            return value;
    return std::nullopt;
}

/// The name of `value` in `table`, or "?" when the table lacks it.
template <typename E, std::size_t N>
std::string_view enumName(const NameTable<E, N> &table, E value)
{
    for (const auto &[v, n] : table)
        if (v == value)
            return n;
    return "?";
}

} // namespace memwall::core
