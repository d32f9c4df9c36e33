#include "common/module.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace bfv::common {
namespace {

namespace fs = std::filesystem;

// This test program is in the build's tests/, the modules beside bfv in its tools/: both are
// looked in, the program's own directory first.
TEST(Module, IsLookedForBesideTheProgramThenWhereTheBuildWritesIt) {
    std::vector<std::string> dirs = ModuleDirs();
    ASSERT_EQ(dirs.size(), 2u);
    EXPECT_EQ(fs::path(dirs[0]), fs::read_symlink("/proc/self/exe").parent_path());
    EXPECT_EQ(fs::path(dirs[1]), fs::path(BFV_BINARY).parent_path());
}

TEST(Module, AMissingModuleIsNamedWithEveryPlaceItWasLookedFor) {
    Expected<void*> symbol = ModuleSymbol("libbfv_nosuch.so", "kNoSuch", "a test");
    ASSERT_FALSE(symbol.ok());
    const std::string& message = symbol.error().message;
    EXPECT_TRUE(message.starts_with("cannot load libbfv_nosuch.so (a test): ")) << message;
    for (const std::string& dir : ModuleDirs())
        EXPECT_NE(message.find(dir + "/libbfv_nosuch.so"), std::string::npos) << message;
    EXPECT_TRUE(message.ends_with("; rebuild bfv (tools/build.sh)")) << message;
}

TEST(Module, ASymbolIsFoundAndAMissingOneNamed) {
    Expected<void*> found = ModuleSymbol("libbfv_gdal.so", "kBfvGdalFunctions", "GDAL");
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_NE(*found, nullptr);
    Expected<void*> missing = ModuleSymbol("libbfv_gdal.so", "kNoSuchSymbol", "GDAL");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "libbfv_gdal.so (GDAL) has no symbol 'kNoSuchSymbol'");
}

}  // namespace
}  // namespace bfv::common
