// libFuzzer harness: a link profile (`bfv commbench`'s output, predict::ReadLinkProfile) read
// and checked. A bad file must be an Error, never a crash.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_input_file.h"
#include "predict/link_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string path = bfv::fuzz::WriteFuzzInput(data, size, "link_profile.json");
    auto profile = bfv::predict::ReadLinkProfile(path);
    if (profile) (void)bfv::predict::LinkProfileJson(*profile).dump();
    return 0;
}
