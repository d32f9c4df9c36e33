// libFuzzer harness: a machine description (`bfv predict --machine FILE`,
// predict::ReadMachineFile) read and checked, its links "shm" and "gige" naming a valid link
// profile beside it; and the same bytes as an MPICH hostfile (predict::ApplyHostfile) applied to
// a valid machine. A bad file must be an Error, never a crash.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_input_file.h"
#include "predict/machine_file.h"

namespace {

constexpr std::string_view kLinkProfile = R"({"bfvLinkProfileVersion": 1, "name": "gige",
  "overall": {"msgSetupS": 5.0e-5, "alcbwBytesPerS": 1.17e8, "apbbwBytesPerS": 1.0e9},
  "segments": [{"minBytes": 0, "maxBytes": 1.0e12, "msgSetupS": 5.0e-5,
                "alcbwBytesPerS": 1.17e8, "apbbwBytesPerS": 1.0e9}],
  "breakpointsBytes": [], "nHalfBytes": 5850, "apbbwSendBytesPerS": 1.0e9,
  "apbbwReceiveBytesPerS": 1.0e9, "manyToOne": []})";

constexpr std::string_view kMachine = R"({"name": "lab",
  "hosts": [{"name": "node", "count": 4, "cores": 2, "cpuSpeed": 1.0, "nics": ["gige"]}],
  "intraHostLink": "shm", "displayReceiveThreads": 1, "links": {"shm": "shm.json",
  "gige": "gige.json"}})";

std::string WriteText(std::string_view text, const std::string& name) {
    return bfv::fuzz::WriteFuzzInput(reinterpret_cast<const std::uint8_t*>(text.data()),
                                     text.size(), name);
}

// The machine the hostfiles apply to, read once (with the link profiles written beside it).
const bfv::predict::Machine& ValidMachine() {
    static const bfv::predict::Machine machine = [] {
        WriteText(kLinkProfile, "shm.json");
        WriteText(kLinkProfile, "gige.json");
        auto file = bfv::predict::ReadMachineFile(WriteText(kMachine, "valid_machine.json"));
        if (!file) std::abort();
        return file->machine;
    }();
    return machine;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    bfv::predict::Machine machine = ValidMachine();
    std::string path = bfv::fuzz::WriteFuzzInput(data, size, "machine.json");
    (void)bfv::predict::ReadMachineFile(path);
    (void)bfv::predict::ApplyHostfile(path, machine);
    return 0;
}
