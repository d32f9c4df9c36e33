// libFuzzer harness: a flight file (`bfv render --flight FILE`, common::LoadFlightFile) read
// and flown: poses sampled along it as the display samples its camera. A bad file must be an
// Error, never a crash. (Whether an accepted flight's numbers are in range is the range checks'
// business, not this harness's.)

#include <cstddef>
#include <cstdint>

#include "common/flight.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string path = bfv::fuzz::WriteFuzzInput(data, size, "flight.json");
    auto ground = [](double xM, double yM) { return 200.0 + 1e-3 * (xM - yM); };
    auto flight = bfv::common::LoadFlightFile(path, ground);
    if (!flight) return 0;
    for (double timeS : {0.0, 0.04, 1.0, 37.5, 1e4}) (void)flight->PoseAt(timeS);
    return 0;
}
