// Operator names made at run time: a model whose layers differ (DeciLM's FFN widths and KV heads per layer) runs one
// operator per kind, named after it ("ffn.up_28672", "attn.score_kv4").
#include "core/analysis/passcontext.h"

#include <mutex>
#include <set>
#include <string>

namespace memwall::core::detail {

std::string_view internName(const std::string &name)
{
    static std::mutex mutex;
    static std::set<std::string, std::less<>> names; // nodes never move: the views stay valid
    const std::lock_guard lock(mutex);
    return *names.insert(name).first;
}

} // namespace memwall::core::detail
