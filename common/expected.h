#pragma once

#include <string>
#include <utility>
#include <variant>

namespace bfv {

/// A failure that reaches the user: one sentence naming the problem and, where it helps, what
/// to do about it ("terrain file 'x.bfvt': bad magic; rebuild it with `bfv import`").
struct Error {
    std::string message;
};

/// A value or an Error: the return type of every operation that can fail on user input
/// (files, arguments, messages). A small C++20 stand-in for std::expected (C++23).
template <typename T>
class [[nodiscard]] Expected {
  public:
    Expected(T value) : state_(std::move(value)) {}
    Expected(Error error) : state_(std::move(error)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(state_); }
    const T& value() const& { return std::get<0>(state_); }
    T&& value() && { return std::get<0>(std::move(state_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<1>(state_); }

  private:
    std::variant<T, Error> state_;
};

/// Expected<void>: success or an Error.
template <>
class [[nodiscard]] Expected<void> {
  public:
    Expected() = default;
    Expected(Error error) : error_(std::move(error)), ok_(false) {}

    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const Error& error() const { return error_; }

  private:
    Error error_;
    bool ok_ = true;
};

}  // namespace bfv
