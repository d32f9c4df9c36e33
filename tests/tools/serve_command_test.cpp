// `bfv render --serve` refused before anything is written: one clear message, non-zero exit.
// (The served run itself: tests/display/web_server_test.cpp and the ServeBrowser test.)

#include <gtest/gtest.h>

#include <string>

#include "tests/temp_dir.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::ExpectCleanFailure;
using test_support::Quote;
using test_support::RunBfv;
using test_support::TempDir;

const std::string kServedRun = "render --sequential --headless --frames 2 --size 160x90 ";

TEST(ServeCommand, RefusesABadAddress) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(RunBfv(kServedRun + "--serve 99999 --out " + Quote(out)),
                       "--serve '99999': the port is not a number in 0..65535", out);
    ExpectCleanFailure(RunBfv(kServedRun + "--serve nohost.example:80 --out " + Quote(out)),
                       "--serve: 'nohost.example' is not an IP address", out);
}

TEST(ServeCommand, RefusesAnAddressNotOfThisMachine) {
    TempDir dir;
    std::string out = dir.File("out");
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: it cannot be listened on.
    ExpectCleanFailure(RunBfv(kServedRun + "--serve 192.0.2.1:8080 --out " + Quote(out)),
                       "--serve: cannot listen on 192.0.2.1:8080", out);
}

}  // namespace
}  // namespace bfv::tools
