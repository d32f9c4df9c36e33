#include "display/control_message.h"

#include <gtest/gtest.h>

#include <string>

namespace bfv::display {
namespace {

TEST(ControlMessage, ParsesEveryKind) {
    auto steer = ParseControlMessage(R"({"type":"steer","turn":-1,"climb":0.5})");
    ASSERT_TRUE(steer) << steer.error().message;
    EXPECT_EQ(std::get<SteerMessage>(*steer).turn, -1.0);
    EXPECT_EQ(std::get<SteerMessage>(*steer).climb, 0.5);
    auto look = ParseControlMessage(R"({"type":"look","rightPx":12,"downPx":-3.5})");
    ASSERT_TRUE(look) << look.error().message;
    EXPECT_EQ(std::get<LookMessage>(*look).rightPx, 12.0);
    EXPECT_EQ(std::get<LookMessage>(*look).downPx, -3.5);
    auto key = ParseControlMessage(R"({"key":"quit","type":"key"})");
    ASSERT_TRUE(key) << key.error().message;
    EXPECT_EQ(std::get<KeyMessage>(*key).key, KeyMessage::kQuit);
    auto take = ParseControlMessage(R"({"type":"take"})");
    ASSERT_TRUE(take) << take.error().message;
    EXPECT_TRUE(std::holds_alternative<TakeControlsMessage>(*take));
    auto shown = ParseControlMessage(R"({"type":"shown"})");
    ASSERT_TRUE(shown) << shown.error().message;
    EXPECT_TRUE(std::holds_alternative<ShownMessage>(*shown));
}

// Every malformed message is refused with a message naming what is wrong.
TEST(ControlMessage, RefusesWhatIsNotInTheSchema) {
    struct Case {
        const char* text;
        const char* error;
    };
    const Case cases[] = {
        {"", "not JSON"},
        {"{\"type\":", "not JSON"},
        {"[1,2]", "string \"type\""},
        {"{\"type\":3}", "string \"type\""},
        {"{\"type\":\"fly\"}", "unknown message type"},
        {"{\"type\":\"steer\",\"turn\":0}", "no member \"climb\""},
        {"{\"type\":\"steer\",\"turn\":2,\"climb\":0}", "outside"},
        {"{\"type\":\"steer\",\"turn\":\"1\",\"climb\":0}", "not a number"},
        {"{\"type\":\"steer\",\"turn\":0,\"climb\":0,\"x\":1}", "unexpected members"},
        {"{\"type\":\"look\",\"rightPx\":1e300,\"downPx\":0}", "outside"},
        {"{\"type\":\"key\",\"key\":\"fire\"}", "not one of"},
        {"{\"type\":\"key\",\"key\":1}", "not one of"},
        {"{\"type\":\"take\",\"who\":2}", "unexpected members"},
        {"{\"type\":\"shown\",\"frame\":2}", "unexpected members"},
    };
    for (const Case& c : cases) {
        auto parsed = ParseControlMessage(c.text);
        ASSERT_FALSE(parsed) << c.text;
        EXPECT_NE(parsed.error().message.find(c.error), std::string::npos)
            << c.text << ": " << parsed.error().message;
    }
}

TEST(ControlMessage, RefusesOversizedMessages) {
    std::string padded = R"({"type":"take")" + std::string(kMaxControlMessageBytes, ' ') + "}";
    auto parsed = ParseControlMessage(padded);
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find("bytes"), std::string::npos) << parsed.error().message;
}

}  // namespace
}  // namespace bfv::display
