// libFuzzer harness: a numpy .npz DEM imported (terrain::ImportNpz, `bfv import x.npz`): the
// zip archive, the .npy headers and the arrays. A bad archive must be an Error, never a crash.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_file.h"
#include "terrain/npz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string path = bfv::fuzz::WriteFuzzInput(data, size, "input.npz");
    (void)bfv::terrain::ImportNpz(path);
    return 0;
}
