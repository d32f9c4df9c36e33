#pragma once

// The error message of an Expected, for tests that compare refusals with what they should say.

#include <string>

#include "common/expected.h"

namespace bfv::test_support {

/// The message of `result`'s error, or "" when it holds a value.
template <typename T>
std::string ErrorOf(const Expected<T>& result) {
    return result.ok() ? "" : result.error().message;
}

}  // namespace bfv::test_support
