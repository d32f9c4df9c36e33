#include "display/web_server.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/host_name.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "display/control_message.h"
#include "display/jpeg_encoder.h"
#include "display/web_page.h"

namespace bfv::display {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

// How long an HTTP request may take to arrive, and a WebSocket's handshake and silence (a
// viewer whose browser answers no ping for this long is closed).
constexpr auto kRequestTimeout = std::chrono::seconds(30);
constexpr auto kViewerIdleTimeout = std::chrono::seconds(30);
constexpr std::uint32_t kMaxRequestHeaderBytes = 8192;
// Frames sent to a viewer and not yet drawn by its page: one drawn while the next travels.
// More would wait in socket buffers and the browser's queue, adding their time to the latency.
constexpr int kMaxFramesInFlight = 2;

// This thread's CPU time, seconds.
double ThreadCpuS() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One message pair a viewer is sent: a text message, then (frames) a binary one.
struct Outgoing {
    std::string text;
    std::string binary;  // empty: none
};

std::string_view Sv(beast::string_view s) { return {s.data(), s.size()}; }

void Log(const std::string& line) { std::fprintf(stderr, "bfv serve: %s\n", line.c_str()); }

}  // namespace

class Viewer;

struct WebServer::Impl {
    Impl(std::string tokenIn) : acceptor(io), token(std::move(tokenIn)) {}

    // The io thread's state: the viewers by id, and who holds the controls (0: nobody).
    void Add(const std::shared_ptr<Viewer>& viewer);
    void Remove(int id);
    void Apply(int id, const ControlMessage& message);
    void SendStatus();
    void Broadcast(const std::shared_ptr<const Outgoing>& frame);

    void Accept();
    void EncodeLoop();

    asio::io_context io;
    tcp::acceptor acceptor;
    std::string token;
    std::string urlHost;
    std::thread ioThread;
    std::thread encoderThread;

    std::map<int, std::weak_ptr<Viewer>> viewers;  // io thread only
    int controllerId = 0;                          // io thread only
    int nextViewerId = 1;                          // io thread only
    std::atomic<int> viewerCount{0};
    std::atomic<int> closesPending{0};  // close frames started and not yet sent

    std::mutex inputMutex;  // guards input: written on the io thread, taken by the display
    PilotInput input;

    std::mutex mailboxMutex;  // guards the mailbox, stopping and stats
    std::condition_variable mailboxReady;
    std::optional<Frame> mailbox;  // its pixels' buffer is reused frame after frame
    bool mailboxFull = false;
    nlohmann::json mailboxHud;
    bool stopping = false;
    ServeStats stats;
};

// One WebSocket viewer. Lives while an operation on its socket is pending (each handler holds
// a shared_ptr); every member is touched on the io thread only. It leaves the server's list
// (Remove) when its connection ends: a failed read or write, or a message that closes it.
class Viewer : public std::enable_shared_from_this<Viewer> {
  public:
    Viewer(tcp::socket socket, WebServer::Impl& server, int id)
        : ws_(std::move(socket)), server_(server), id_(id) {}

    int Id() const { return id_; }

    void Accept(http::request<http::empty_body> request) {
        websocket::stream_base::timeout timeout{kRequestTimeout, kViewerIdleTimeout, true};
        ws_.set_option(timeout);
        ws_.read_message_max(kMaxControlMessageBytes);
        beast::get_lowest_layer(ws_).expires_never();
        ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
            if (ec)
                return Log(fmt::format("viewer {} handshake failed: {}", self->id_, ec.message()));
            self->server_.Add(self);
            self->Read();
        });
    }

    // Sends the viewer its status (its id, who holds the controls, how many watch) next.
    void StatusChanged(int controllerId, int nViewers) {
        status_ = nlohmann::json{{"type", "viewers"},
                                 {"you", id_},
                                 {"controller", controllerId},
                                 {"count", nViewers}}
                      .dump();
        Pump();
    }

    // Sends `frame` once the message in flight is out; a frame still waiting is dropped.
    void Deliver(const std::shared_ptr<const Outgoing>& frame) {
        pendingFrame_ = frame;
        Pump();
    }

    // Closes the connection for `reason` (logged; also the close frame's reason).
    void Close(websocket::close_code code, const std::string& reason) {
        Log(fmt::format("viewer {} closed: {}", id_, reason));
        closing_ = true;
        server_.Remove(id_);
        websocket::close_reason why(code, reason.substr(0, 120));
        ++server_.closesPending;
        ws_.async_close(
            why, [self = shared_from_this()](beast::error_code) { --self->server_.closesPending; });
    }

  private:
    void Read() {
        ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            self->OnRead(ec);
        });
    }

    void OnRead(beast::error_code ec) {
        if (ec == websocket::error::closed) {
            Log(fmt::format("viewer {} left", id_));
            return server_.Remove(id_);
        }
        if (ec) {  // Beast itself closes the connection (e.g. a message over the size limit)
            Log(fmt::format("viewer {} closed: {}", id_, ec.message()));
            closing_ = true;
            return server_.Remove(id_);
        }
        if (!ws_.got_text()) return Close(websocket::close_code::bad_payload, "a binary message");
        std::string text = beast::buffers_to_string(buffer_.data());
        buffer_.consume(buffer_.size());
        auto message = ParseControlMessage(text);
        if (!message) return Close(websocket::close_code::policy_error, message.error().message);
        if (std::holds_alternative<ShownMessage>(*message)) {
            framesInFlight_ = std::max(framesInFlight_ - 1, 0);
            Pump();
        } else {
            server_.Apply(id_, *message);
        }
        Read();
    }

    // Starts the next write when none is in flight: the status first, then the newest frame
    // when the page has drawn all but kMaxFramesInFlight - 1 of those sent.
    void Pump() {
        if (writing_ || closing_) return;
        if (!status_.empty()) {
            auto status = std::make_shared<Outgoing>(Outgoing{std::exchange(status_, {}), {}});
            return Write(status);
        }
        if (pendingFrame_ && framesInFlight_ < kMaxFramesInFlight) {
            ++framesInFlight_;
            Write(std::exchange(pendingFrame_, nullptr));
        }
    }

    void Write(std::shared_ptr<const Outgoing> out) {
        writing_ = true;
        ws_.text(true);
        ws_.async_write(asio::buffer(out->text), [self = shared_from_this(), out](
                                                     beast::error_code ec, std::size_t) {
            if (ec) return self->WriteFailed(ec);
            if (out->binary.empty()) return self->WriteDone();
            self->ws_.binary(true);
            self->ws_.async_write(asio::buffer(out->binary),
                                  [self, out](beast::error_code binaryEc, std::size_t) {
                                      if (binaryEc) return self->WriteFailed(binaryEc);
                                      self->WriteDone();
                                  });
        });
    }

    void WriteDone() {
        writing_ = false;
        Pump();
    }

    void WriteFailed(beast::error_code ec) {
        if (!closing_) Log(fmt::format("viewer {} dropped: {}", id_, ec.message()));
        closing_ = true;
        server_.Remove(id_);
    }

    websocket::stream<beast::tcp_stream> ws_;
    WebServer::Impl& server_;
    int id_;
    beast::flat_buffer buffer_;
    bool writing_ = false;
    bool closing_ = false;
    int framesInFlight_ = 0;  // frames sent that the page has not said it drew
    std::string status_;
    std::shared_ptr<const Outgoing> pendingFrame_;
};

namespace {

// One plain HTTP request: the page, a WebSocket upgrade handed to a Viewer, or a refusal.
// One request per connection (the page is one request; the frames go over the WebSocket).
class HttpRequest : public std::enable_shared_from_this<HttpRequest> {
  public:
    HttpRequest(tcp::socket socket, WebServer::Impl& server)
        : stream_(std::move(socket)), server_(server) {}

    void Read() {
        parser_.header_limit(kMaxRequestHeaderBytes);
        parser_.body_limit(0);
        stream_.expires_after(kRequestTimeout);
        http::async_read(stream_, buffer_, parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) {
                             if (!ec) self->Answer();
                         });
    }

  private:
    void Answer() {
        auto request = parser_.release();
        RequestTarget target = ParseRequestTarget(Sv(request.target()));
        bool tokenOk = TokenMatches(target.token, server_.token);
        if (websocket::is_upgrade(request) && target.path == "/ws" && tokenOk &&
            OriginAllowed(Sv(request[http::field::origin]), Sv(request[http::field::host]))) {
            auto viewer =
                std::make_shared<Viewer>(stream_.release_socket(), server_, server_.nextViewerId++);
            return viewer->Accept(std::move(request));
        }
        if (!tokenOk || websocket::is_upgrade(request)) {
            Log(fmt::format(
                "refused {} {}: {}", Sv(request.method_string()), target.path,
                tokenOk ? "the WebSocket's Origin is not this page's" : "no valid token"));
            return Send(request, http::status::forbidden, "text/plain",
                        "403: open the URL bfv printed, with its ?token=\n");
        }
        if (request.method() == http::verb::get && target.path == "/")
            return Send(request, http::status::ok, "text/html; charset=utf-8",
                        std::string(WebPageHtml()));
        if (target.path == "/ws")
            return Send(request, http::status::upgrade_required, "text/plain",
                        "426: /ws takes WebSocket connections only\n");
        Send(request, http::status::not_found, "text/plain", "404\n");
    }

    void Send(const http::request<http::empty_body>& request, http::status status,
              const char* contentType, std::string body) {
        auto response = std::make_shared<http::response<http::string_body>>(
            status, request.version(), std::move(body));
        response->set(http::field::content_type, contentType);
        response->set(http::field::cache_control, "no-store");
        response->keep_alive(false);
        response->prepare_payload();
        http::async_write(stream_, *response,
                          [self = shared_from_this(), response](beast::error_code, std::size_t) {
                              beast::error_code ignored;
                              self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          });
    }

    beast::tcp_stream stream_;
    WebServer::Impl& server_;
    beast::flat_buffer buffer_;
    http::request_parser<http::empty_body> parser_;
};

}  // namespace

void WebServer::Impl::Add(const std::shared_ptr<Viewer>& viewer) {
    viewers[viewer->Id()] = viewer;
    if (controllerId == 0) controllerId = viewer->Id();
    viewerCount = static_cast<int>(viewers.size());
    Log(fmt::format("viewer {} joined ({} watching)", viewer->Id(), viewers.size()));
    SendStatus();
}

void WebServer::Impl::Remove(int id) {
    if (viewers.erase(id) == 0) return;
    viewerCount = static_cast<int>(viewers.size());
    if (controllerId == id) {
        controllerId = viewers.empty() ? 0 : viewers.begin()->first;
        std::lock_guard lock(inputMutex);
        input.turn = input.climb = 0.0;  // keys the last pilot held are released
    }
    SendStatus();
}

void WebServer::Impl::Apply(int id, const ControlMessage& message) {
    if (std::holds_alternative<TakeControlsMessage>(message)) {
        if (controllerId != id) {
            controllerId = id;
            std::lock_guard lock(inputMutex);
            input.turn = input.climb = 0.0;
            Log(fmt::format("viewer {} took the controls", id));
            SendStatus();
        }
        return;
    }
    if (id != controllerId) return;  // a watcher's keys steer nothing
    std::lock_guard lock(inputMutex);
    if (const auto* steer = std::get_if<SteerMessage>(&message)) {
        input.turn = steer->turn;
        input.climb = steer->climb;
    } else if (const auto* look = std::get_if<LookMessage>(&message)) {
        input.lookRightPx += look->rightPx;
        input.lookDownPx += look->downPx;
    } else if (const auto* key = std::get_if<KeyMessage>(&message)) {
        switch (key->key) {
            case KeyMessage::kFaster:
                ++input.speedSteps;
                break;
            case KeyMessage::kSlower:
                --input.speedSteps;
                break;
            case KeyMessage::kHigher:
                ++input.aglSteps;
                break;
            case KeyMessage::kLower:
                --input.aglSteps;
                break;
            case KeyMessage::kPause:
                input.togglePause = !input.togglePause;
                break;
            case KeyMessage::kQuit:
                input.quit = true;
                break;
        }
    }
}

void WebServer::Impl::SendStatus() {
    for (auto& [id, weak] : viewers) {
        if (auto viewer = weak.lock())
            viewer->StatusChanged(controllerId, static_cast<int>(viewers.size()));
    }
}

void WebServer::Impl::Broadcast(const std::shared_ptr<const Outgoing>& frame) {
    for (auto& [id, weak] : viewers) {
        if (auto viewer = weak.lock()) viewer->Deliver(frame);
    }
}

void WebServer::Impl::Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) std::make_shared<HttpRequest>(std::move(socket), *this)->Read();
        Accept();
    });
}

void WebServer::Impl::EncodeLoop() {
    JpegEncoder encoder(kServeJpegQuality);
    std::optional<Frame> frame;
    std::vector<std::uint8_t> rgb;
    for (;;) {
        nlohmann::json hud;
        {
            std::unique_lock lock(mailboxMutex);
            mailboxReady.wait(lock, [&] { return stopping || mailboxFull; });
            if (stopping) return;
            std::swap(frame, mailbox);
            mailboxFull = false;
            hud = std::move(mailboxHud);
        }
        double startS = ThreadCpuS();
        frame->ToRgb(rgb);
        auto out = std::make_shared<Outgoing>();
        if (auto ok = encoder.Encode(rgb, frame->WidthPx(), frame->HeightPx(), out->binary); !ok)
            return Log(ok.error().message);
        double cpuS = ThreadCpuS() - startS;
        hud["type"] = "frame";
        hud["jpegBytes"] = out->binary.size();
        hud["encodeMs"] = 1e3 * cpuS;
        out->text = hud.dump();
        {
            std::lock_guard lock(mailboxMutex);
            ++stats.framesEncoded;
            stats.jpegBytes += out->binary.size();
            stats.encodeCpuS += cpuS;
        }
        asio::post(
            io, [this, out = std::shared_ptr<const Outgoing>(std::move(out))] { Broadcast(out); });
    }
}

WebServer::WebServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Expected<std::unique_ptr<WebServer>> WebServer::Start(const ServeAddress& address,
                                                      std::string token) {
    auto impl = std::make_unique<Impl>(std::move(token));
    beast::error_code ec;
    auto ip = asio::ip::make_address(address.host, ec);
    if (ec) return Error{fmt::format("--serve: '{}' is not an IP address", address.host)};
    tcp::endpoint endpoint(ip, address.port);
    tcp::acceptor& acceptor = impl->acceptor;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        return Error{fmt::format("--serve: cannot listen on {}:{}: {}", address.host, address.port,
                                 ec.message())};
    impl->urlHost = ip.is_unspecified() ? asio::ip::host_name()
                    : ip.is_v6()        ? "[" + address.host + "]"
                                        : address.host;
    impl->Accept();
    Impl* raw = impl.get();
    impl->ioThread = std::thread([raw] { raw->io.run(); });
    impl->encoderThread = std::thread([raw] { raw->EncodeLoop(); });
    return std::unique_ptr<WebServer>(new WebServer(std::move(impl)));
}

WebServer::~WebServer() {
    {
        std::lock_guard lock(impl_->mailboxMutex);
        impl_->stopping = true;
    }
    impl_->mailboxReady.notify_one();
    impl_->encoderThread.join();
    impl_->io.stop();
    impl_->ioThread.join();
}

void WebServer::End(const std::string& how) {
    // Shared with the posted closes, which may run after a timed-out wait has returned.
    auto started = std::make_shared<std::atomic<bool>>(false);
    asio::post(impl_->io, [this, how, started] {
        std::vector<std::shared_ptr<Viewer>> open;
        for (auto& [id, viewer] : impl_->viewers) {
            if (auto v = viewer.lock()) open.push_back(std::move(v));
        }
        for (auto& viewer : open) {
            viewer->Close(websocket::close_code::normal, "the run has ended: " + how);
        }
        *started = true;
    });
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(kEndWaitS));
    while ((!*started || impl_->closesPending > 0) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

std::string WebServer::Url() const {
    return fmt::format("http://{}:{}/?token={}", impl_->urlHost, Port(), impl_->token);
}

unsigned short WebServer::Port() const { return impl_->acceptor.local_endpoint().port(); }

bool WebServer::Watched() const { return impl_->viewerCount > 0; }

void WebServer::Offer(const Frame& image, nlohmann::json hud) {
    if (!Watched()) return;
    {
        std::lock_guard lock(impl_->mailboxMutex);
        if (impl_->mailbox)
            *impl_->mailbox = image;
        else
            impl_->mailbox.emplace(image);
        impl_->mailboxFull = true;
        impl_->mailboxHud = std::move(hud);
    }
    impl_->mailboxReady.notify_one();
}

PilotInput WebServer::TakeInput() {
    std::lock_guard lock(impl_->inputMutex);
    PilotInput taken = impl_->input;
    PilotInput& held = impl_->input;
    held = PilotInput{.turn = held.turn, .climb = held.climb};
    return taken;
}

ServeStats WebServer::Stats() const {
    std::lock_guard lock(impl_->mailboxMutex);
    return impl_->stats;
}

}  // namespace bfv::display
