#include "display/web_access.h"

#include <gtest/gtest.h>

namespace bfv::display {
namespace {

TEST(WebAccess, ParsesServeAddresses) {
    auto port = ParseServeAddress("8080");
    ASSERT_TRUE(port) << port.error().message;
    EXPECT_EQ(port->host, "127.0.0.1");  // this machine only unless a host is given
    EXPECT_EQ(port->port, 8080);
    auto any = ParseServeAddress("0.0.0.0:9000");
    ASSERT_TRUE(any) << any.error().message;
    EXPECT_EQ(any->host, "0.0.0.0");
    EXPECT_EQ(any->port, 9000);
    auto v6 = ParseServeAddress("[::1]:80");
    ASSERT_TRUE(v6) << v6.error().message;
    EXPECT_EQ(v6->host, "::1");
}

TEST(WebAccess, RefusesBadServeAddresses) {
    for (const char* text : {"", "http", "8080x", "70000", "-1", ":8080", "host:"}) {
        auto parsed = ParseServeAddress(text);
        ASSERT_FALSE(parsed) << text;
        EXPECT_NE(parsed.error().message.find("--serve"), std::string::npos);
    }
}

TEST(WebAccess, TokensAreFreshAndLong) {
    std::string a = NewAccessToken(), b = NewAccessToken();
    EXPECT_EQ(a.size(), 32u);
    EXPECT_NE(a, b);
}

TEST(WebAccess, SplitsTheTarget) {
    RequestTarget t = ParseRequestTarget("/ws?x=1&token=abc&y=2");
    EXPECT_EQ(t.path, "/ws");
    EXPECT_EQ(t.token, "abc");
    EXPECT_EQ(ParseRequestTarget("/").token, "");
    EXPECT_EQ(ParseRequestTarget("/?token=").token, "");
}

TEST(WebAccess, TokenMustMatchWhole) {
    EXPECT_TRUE(TokenMatches("abcd", "abcd"));
    EXPECT_FALSE(TokenMatches("abce", "abcd"));
    EXPECT_FALSE(TokenMatches("abc", "abcd"));
    EXPECT_FALSE(TokenMatches("abcde", "abcd"));
    EXPECT_FALSE(TokenMatches("", ""));  // no token configured lets nobody in
}

TEST(WebAccess, OriginMustBeThePagesOwn) {
    EXPECT_TRUE(OriginAllowed("http://localhost:8080", "localhost:8080"));
    EXPECT_FALSE(OriginAllowed("http://evil.example", "localhost:8080"));
    EXPECT_FALSE(OriginAllowed("http://localhost:8081", "localhost:8080"));
    EXPECT_FALSE(OriginAllowed("https://localhost:8080", "localhost:8080"));
    EXPECT_FALSE(OriginAllowed("", "localhost:8080"));
    EXPECT_FALSE(OriginAllowed("http://", ""));
}

}  // namespace
}  // namespace bfv::display
