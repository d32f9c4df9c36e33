#pragma once

// Internal invariant checks (programming errors, not user input): on failure print both
// operands, the file and the line, then abort. User input errors go through bfv::Expected.

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace bfv::detail {

[[noreturn]] inline void CheckFailed(const char* expr, const std::string& operands,
                                     const char* file, int line) {
    std::fprintf(stderr, "bfv: check failed at %s:%d: %s%s\n", file, line, expr, operands.c_str());
    std::abort();
}

template <typename A, typename B>
std::string Operands(const A& a, const B& b) {
    std::ostringstream s;
    s << " (" << a << " vs " << b << ")";
    return s.str();
}

}  // namespace bfv::detail

#define BFV_CHECK(cond) \
    ((cond) ? (void)0 : ::bfv::detail::CheckFailed(#cond, "", __FILE__, __LINE__))

#define BFV_CHECK_OP(a, op, b)                                                                     \
    (((a)op(b)) ? (void)0                                                                          \
                : ::bfv::detail::CheckFailed(#a " " #op " " #b, ::bfv::detail::Operands((a), (b)), \
                                             __FILE__, __LINE__))

#define BFV_CHECK_EQ(a, b) BFV_CHECK_OP(a, ==, b)
#define BFV_CHECK_LT(a, b) BFV_CHECK_OP(a, <, b)
#define BFV_CHECK_LE(a, b) BFV_CHECK_OP(a, <=, b)
#define BFV_CHECK_GE(a, b) BFV_CHECK_OP(a, >=, b)
