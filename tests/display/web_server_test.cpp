#include "display/web_server.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "display/control_message.h"

namespace bfv::display {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

// Waits (up to a generous deadline, for loaded machines) until `done` holds.
bool Eventually(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

class WebServerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto server = WebServer::Start(ServeAddress{"127.0.0.1", 0}, kToken);
        ASSERT_TRUE(server) << server.error().message;
        server_ = std::move(*server);
        host_ = "127.0.0.1:" + std::to_string(server_->Port());
    }

    // The status of a plain GET of `target`.
    int Get(const std::string& target) {
        asio::io_context io;
        beast::tcp_stream stream(io);
        stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->Port()));
        http::request<http::empty_body> request(http::verb::get, target, 11);
        request.set(http::field::host, host_);
        http::write(stream, request);
        beast::flat_buffer buffer;
        http::response<http::string_body> response;
        http::read(stream, buffer, response);
        body_ = response.body();
        return response.result_int();
    }

    // A viewer's WebSocket, opened with `token` from `origin`. Throws beast::system_error when
    // the handshake is refused.
    struct Viewer {
        asio::io_context io;
        websocket::stream<tcp::socket> ws{io};
        beast::flat_buffer buffer;

        // The next message's text (frames' JPEGs as bytes). A JPEG is acknowledged as the
        // page does once it drew it, so that the next frames come.
        std::string Read() {
            buffer.consume(buffer.size());
            ws.read(buffer);
            std::string text = beast::buffers_to_string(buffer.data());
            if (!ws.got_text()) Send(R"({"type":"shown"})");
            return text;
        }
        // The next message whose text holds `part` (others skipped).
        std::string ReadUntil(const std::string& part) {
            for (;;) {
                std::string text = Read();
                if (text.find(part) != std::string::npos) return text;
            }
        }
        void Send(const std::string& text) {
            ws.text(true);
            ws.write(asio::buffer(text));
        }
    };

    std::unique_ptr<Viewer> Connect(const std::string& token = kToken, std::string origin = "") {
        if (origin.empty()) origin = "http://" + host_;
        auto viewer = std::make_unique<Viewer>();
        viewer->ws.next_layer().connect(
            tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->Port()));
        viewer->ws.set_option(websocket::stream_base::decorator(
            [origin](websocket::request_type& r) { r.set(http::field::origin, origin); }));
        viewer->ws.handshake(host_, "/ws?token=" + token);
        return viewer;
    }

    // A 64x48 frame of a horizontal gradient.
    static Frame TestFrame() {
        Frame frame(64, 48);
        for (int x = 0; x < 64; ++x) {
            for (int y = 0; y < 48; ++y)
                frame.Column(x)[y] = {static_cast<std::uint8_t>(4 * x), 100, 50};
        }
        return frame;
    }

    std::unique_ptr<WebServer> server_;
    std::string host_;
    std::string body_;
};

TEST_F(WebServerTest, ServesThePageOnlyWithTheToken) {
    EXPECT_EQ(Get(std::string("/?token=") + kToken), 200);
    EXPECT_NE(body_.find("<canvas"), std::string::npos);
    EXPECT_EQ(Get("/"), 403);
    EXPECT_EQ(Get("/?token=0123456789abcdef0123456789abcdeX"), 403);
    EXPECT_EQ(Get(std::string("/elsewhere?token=") + kToken), 404);
}

TEST_F(WebServerTest, SocketPathTakesOnlyWebSockets) {
    EXPECT_EQ(Get(std::string("/ws?token=") + kToken), 426);
    EXPECT_EQ(Get("/ws"), 403);
}

TEST_F(WebServerTest, RefusesWebSocketsWithoutTokenOrFromAnotherOrigin) {
    EXPECT_THROW(Connect("wrong"), beast::system_error);
    EXPECT_THROW(Connect(kToken, "http://evil.example"), beast::system_error);
    EXPECT_FALSE(server_->Watched());
    EXPECT_NO_THROW(Connect());
}

TEST_F(WebServerTest, EncodesNothingWithoutAViewer) {
    Frame frame = TestFrame();
    for (int i = 0; i < 5; ++i) server_->Offer(frame, {{"frame", i}});
    EXPECT_EQ(server_->Stats().framesEncoded, 0u);
}

TEST_F(WebServerTest, StreamsFramesAsJpegAfterTheirHud) {
    auto viewer = Connect();
    std::string status = viewer->ReadUntil("\"viewers\"");
    EXPECT_NE(status.find("\"controller\":1"), std::string::npos) << status;
    ASSERT_TRUE(Eventually([&] { return server_->Watched(); }));
    server_->Offer(TestFrame(), {{"frame", 7}});
    std::string hud = viewer->ReadUntil("\"frame\"");
    EXPECT_NE(hud.find("\"frame\":7"), std::string::npos) << hud;
    std::string jpeg = viewer->Read();
    ASSERT_GE(jpeg.size(), 4u);
    EXPECT_EQ(static_cast<unsigned char>(jpeg[0]), 0xFF);  // the JPEG SOI marker
    EXPECT_EQ(static_cast<unsigned char>(jpeg[1]), 0xD8);
    EXPECT_EQ(server_->Stats().framesEncoded, 1u);
}

// One viewer holds the controls (the first, then whoever takes them); the others' keys steer
// nothing.
TEST_F(WebServerTest, OnlyTheViewerHoldingTheControlsSteers) {
    auto first = Connect();
    auto second = Connect();
    ASSERT_TRUE(Eventually([&] { return server_->Watched(); }));
    second->Send(R"({"type":"key","key":"faster"})");
    first->Send(R"({"type":"steer","turn":1,"climb":0})");
    PilotInput input;
    ASSERT_TRUE(Eventually([&] {
        input = server_->TakeInput();
        return input.turn == 1.0;
    }));
    EXPECT_EQ(input.speedSteps, 0);
    second->Send(R"({"type":"take"})");
    second->Send(R"({"type":"key","key":"quit"})");
    ASSERT_TRUE(Eventually([&] { return server_->TakeInput().quit; }));
    EXPECT_EQ(server_->TakeInput().turn, 0.0);  // the first viewer's held key let go
}

// End closes every viewer's WebSocket normally, the close frame saying how the run ended.
TEST_F(WebServerTest, EndTellsEveryViewerHowTheRunEnded) {
    auto first = Connect(), second = Connect();
    second->ReadUntil("\"count\":2");
    server_->End("completed");
    for (auto* viewer : {first.get(), second.get()}) {
        beast::error_code ec;
        while (!ec) {
            viewer->buffer.consume(viewer->buffer.size());
            viewer->ws.read(viewer->buffer, ec);
        }
        EXPECT_EQ(ec, websocket::error::closed);
        EXPECT_EQ(viewer->ws.reason().code, websocket::close_code::normal);
        EXPECT_STREQ(viewer->ws.reason().reason.c_str(), "the run has ended: completed");
    }
}

// A malformed or oversized message closes that viewer's connection; the run (the server and
// the other viewers) goes on.
TEST_F(WebServerTest, BadMessagesCloseOnlyTheirViewer) {
    auto good = Connect();
    for (std::string bad : {std::string("not json"), std::string(R"({"type":"steer"})"),
                            std::string(4 * kMaxControlMessageBytes, 'x')}) {
        auto viewer = Connect();
        viewer->Send(bad);
        beast::error_code ec;
        while (!ec) {  // ends when the server closes it (a close frame, or the socket)
            viewer->buffer.consume(viewer->buffer.size());
            viewer->ws.read(viewer->buffer, ec);
        }
        good->ReadUntil("\"count\":2");  // the good viewer sees it come and go
        good->ReadUntil("\"count\":1");
    }
    good->Send(R"({"type":"key","key":"pause"})");
    ASSERT_TRUE(Eventually([&] { return server_->TakeInput().togglePause; }));
}

// A viewer that never reads, and one that disconnects in the middle of a frame, neither block
// Offer nor stop the frames reaching a viewer that reads.
TEST_F(WebServerTest, SlowAndVanishingViewersDoNotStallTheRun) {
    auto silent = Connect();  // never reads
    auto leaving = Connect();
    auto reader = Connect();
    ASSERT_TRUE(Eventually([&] { return server_->Watched(); }));
    Frame frame(1280, 720);  // big enough to fill the silent viewer's socket buffers
    for (int i = 0; i < 60; ++i) server_->Offer(frame, {{"frame", i}});
    leaving->ReadUntil("\"frame\"");  // a frame's HUD, and its JPEG not read
    leaving->ws.next_layer().close();
    for (int i = 60; i < 120; ++i) {
        server_->Offer(frame, {{"frame", i}});
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    server_->Offer(frame, {{"frame", 1000}});
    reader->ReadUntil("\"frame\":1000");  // the newest frame arrives
    EXPECT_LT(server_->Stats().framesEncoded, 122u);
}

}  // namespace
}  // namespace bfv::display
