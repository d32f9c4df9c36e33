// libFuzzer harness: a resource profile (`bfv render --profile`'s output,
// predict::ReadResourceProfile) read and checked. A bad file must be an Error, never a crash.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_input_file.h"
#include "predict/resource_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string path = bfv::fuzz::WriteFuzzInput(data, size, "profile.json");
    auto profile = bfv::predict::ReadResourceProfile(path);
    if (profile) (void)bfv::predict::ResourceProfileJson(*profile).dump();
    return 0;
}
