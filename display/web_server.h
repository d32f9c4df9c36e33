#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/expected.h"
#include "display/frame.h"
#include "display/pilot.h"
#include "display/web_access.h"

namespace bfv::display {

/// JPEG quality of the frames served (libjpeg scale): about 1 bit per pixel on terrain.
inline constexpr int kServeJpegQuality = 80;

/// What the frames served so far cost the display: counted on the encoding thread.
struct ServeStats {
    std::uint64_t framesEncoded = 0;  // frames compressed (none while no viewer is connected)
    std::uint64_t jpegBytes = 0;      // their compressed bytes in all
    double encodeCpuS = 0.0;          // the encoding thread's CPU time on them, seconds
};

/// `bfv render --serve`: the display's web server (Boost.Beast on a thread of its own). It
/// serves one page (GET /?token=T) and streams every frame it is offered to the page's
/// WebSocket (/ws?token=T) as a JSON text message (the HUD's values) then a JPEG binary
/// message, compressed on an encoding thread of its own from a one-frame mailbox: a frame
/// offered while the last is still being encoded replaces it, and a viewer gets the newest
/// frame only once it has drawn all but one of those sent (its page says so), so a slow viewer
/// drops frames, never queues them, and never slows the run. Viewers send control messages
/// (ParseControlMessage); the one holding the controls (the first, or the last to ask) steers
/// through TakeInput, the others watch. Requests without the token get HTTP 403; WebSockets from
/// another Origin too; a malformed or oversized message closes its viewer's connection with the
/// reason on stderr.
class WebServer {
  public:
    /// Listens on `address` with `token` required. Errors: the address cannot be bound.
    static Expected<std::unique_ptr<WebServer>> Start(const ServeAddress& address,
                                                      std::string token);
    /// Closes every connection and joins the threads.
    ~WebServer();
    WebServer(const WebServer&) = delete;
    WebServer& operator=(const WebServer&) = delete;

    /// The page's address with its token, for the user to open
    /// (http://HOST:PORT/?token=T; this machine's name for HOST when bound to every address).
    std::string Url() const;
    /// The port listened on (the one the system chose when asked for 0).
    unsigned short Port() const;
    /// Whether any viewer is connected: without one, Offer returns at once.
    bool Watched() const;
    /// Hands `image` with its HUD values `hud` (a JSON object the page shows) to the encoding
    /// thread: copies the frame into the mailbox, replacing a frame not yet encoded. Costs a
    /// copy of the frame when watched, nothing otherwise.
    void Offer(const Frame& image, nlohmann::json hud);
    /// What the viewer holding the controls asked since the last call: keys held now (turn,
    /// climb), drags and presses summed.
    PilotInput TakeInput();
    /// The encoding so far.
    ServeStats Stats() const;
    /// Tells every viewer the run has ended and how (`how`, e.g. "completed"; the page shows
    /// it): closes each WebSocket normally with "the run has ended: HOW" as the close reason,
    /// and waits until every viewer has answered its close, at most kEndWaitS. Frames offered
    /// after it are not sent.
    void End(const std::string& how);
    /// The longest End waits for its closes to be sent, seconds.
    static constexpr double kEndWaitS = 1.0;

    /// The server's threads and state (web_server.cpp).
    struct Impl;

  private:
    explicit WebServer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace bfv::display
