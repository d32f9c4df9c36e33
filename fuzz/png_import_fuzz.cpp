// libFuzzer harness: a 16-bit greyscale PNG heightmap imported (terrain::ImportPng16, `bfv
// import x.png`), stb_image's decoder included. A bad image must be an Error, never a crash.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_file.h"
#include "terrain/png_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string path = bfv::fuzz::WriteFuzzInput(data, size, "input.png");
    (void)bfv::terrain::ImportPng16(path, {.spacingM = 2.0, .heightScaleM = 0.1});
    return 0;
}
