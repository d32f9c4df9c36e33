#pragma once

#include <cstddef>
#include <string_view>
#include <variant>

#include "common/expected.h"

namespace bfv::display {

/// The largest control message a viewer may send, bytes: the longest valid one is under 100.
inline constexpr std::size_t kMaxControlMessageBytes = 512;
/// The largest mouse drag one look message may carry, pixels (a 16K screen's width).
inline constexpr double kMaxLookPx = 16384.0;

/// The arrow keys (or WASD) the pilot holds now: turn -1 (left) .. 1 (right), climb -1
/// (pitch down) .. 1 (pitch up), as PilotInput's turn and climb.
struct SteerMessage {
    double turn = 0.0;
    double climb = 0.0;
};

/// A mouse drag with the left button held since the last one, pixels (PilotInput's
/// lookRightPx, lookDownPx), each within +-kMaxLookPx.
struct LookMessage {
    double rightPx = 0.0;
    double downPx = 0.0;
};

/// A key pressed once: the SDL window's +, -, PageUp, PageDown, space and Esc.
struct KeyMessage {
    enum Key { kFaster, kSlower, kHigher, kLower, kPause, kQuit };
    Key key = kFaster;
};

/// The viewer asks to hold the controls (the others then only watch).
struct TakeControlsMessage {};

/// The viewer's page has drawn a frame: the server sends a viewer at most a few frames ahead of
/// what it has drawn, so that frames wait in no buffer on the way (see WebServer).
struct ShownMessage {};

/// One message a viewer's page sends over the WebSocket.
using ControlMessage =
    std::variant<SteerMessage, LookMessage, KeyMessage, TakeControlsMessage, ShownMessage>;

/// Parses one text message from a viewer: a JSON object of at most kMaxControlMessageBytes,
/// one of
///   {"type":"steer","turn":T,"climb":C}      T, C numbers in -1..1
///   {"type":"look","rightPx":X,"downPx":Y}   X, Y numbers within +-kMaxLookPx
///   {"type":"key","key":K}                   K one of faster slower higher lower pause quit
///   {"type":"take"}
///   {"type":"shown"}
/// with no other members. Errors: anything else (too long, not JSON, a missing, extra or
/// mistyped member, a value out of range), with a message naming the problem.
Expected<ControlMessage> ParseControlMessage(std::string_view text);

}  // namespace bfv::display
