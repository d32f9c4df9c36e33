#include "predict/machine_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/json_file.h"
#include "common/render_options.h"

namespace bfv::predict {

namespace {

using nlohmann::json;

Error FileError(const std::string& path, const std::string& what) {
    return Error{"machine file '" + path + "': " + what};
}

// j[key] as a whole number within `range`, named field+key in errors; `fallback` when absent.
Expected<int> IntegerIn(const json& j, const char* key, int fallback, const common::Range& range,
                        const std::string& field, const std::string& path) {
    if (!j.contains(key)) return fallback;
    auto value = common::JsonIntegerIn(j.at(key), field + key, range);
    if (!value) return FileError(path, value.error().message);
    return value;
}

// j[key] as a number within `range`, named field+key in errors; `fallback` when absent.
Expected<double> NumberIn(const json& j, const char* key, double fallback,
                          const common::Range& range, const std::string& field,
                          const std::string& path) {
    if (!j.contains(key)) return fallback;
    auto value = common::JsonNumberIn(j.at(key), field + key, range);
    if (!value) return FileError(path, value.error().message);
    return value;
}

// j[key] as a string, named field+key in errors; `fallback` when absent.
Expected<std::string> StringOf(const json& j, const char* key, const std::string& fallback,
                               const std::string& field, const std::string& path) {
    if (!j.contains(key)) return fallback;
    if (!j.at(key).is_string()) return FileError(path, field + key + " must be a string");
    return j.at(key).get<std::string>();
}

// j["nics"], each a link of `links`, named field+"nics" in errors (the host's index in the file,
// not in the machine's list of hosts, which repeats a host of "count" > 1).
Expected<std::vector<std::string>> Nics(const json& j, const std::string& field,
                                        const std::string& path,
                                        const std::map<std::string, LinkProfile>& links) {
    if (!j.contains("nics")) return std::vector<std::string>{};
    const json& list = j.at("nics");
    bool strings = list.is_array() && std::all_of(list.begin(), list.end(),
                                                  [](const json& n) { return n.is_string(); });
    if (!strings) return FileError(path, field + "nics must be a list of link names");
    for (const json& nic : list) {
        if (links.count(nic.get<std::string>()) == 0) {
            return FileError(path, field + "nics names link '" + nic.get<std::string>() +
                                       "', which \"links\" does not map to a profile");
        }
    }
    return list.get<std::vector<std::string>>();
}

// The file's hosts[index]: one ClusterHost, or "count" of them named name1, name2, ...
Expected<std::vector<predict::ClusterHost>> ParseHost(
    const json& j, size_t index, const std::string& path,
    const std::map<std::string, LinkProfile>& links) {
    std::string field = "hosts[" + std::to_string(index) + "].";
    if (!j.is_object() || !j.contains("name") || !j.at("name").is_string()) {
        return FileError(path, field + "name must be a string");
    }
    auto known = common::JsonKnownKeys(j, "hosts[" + std::to_string(index) + "]",
                                       {"name", "cores", "count", "cpuSpeed", "capacityCores",
                                        "nics", "cpuQuotaCores", "quotaPeriodS"});
    if (!known) return FileError(path, known.error().message);
    auto cores = IntegerIn(j, "cores", 1, kHostCoresRange, field, path);
    if (!cores) return cores.error();
    auto count = IntegerIn(j, "count", 1, kHostCountRange, field, path);
    auto speed = NumberIn(j, "cpuSpeed", 1.0, kCpuSpeedRange, field, path);
    auto capacity =
        NumberIn(j, "capacityCores", 0.0, common::Range::Closed(0.0, *cores, "cores"), field, path);
    auto nics = Nics(j, field, path, links);
    auto quota =
        NumberIn(j, "cpuQuotaCores", 0.0, common::Range::Closed(0.0, *cores, "cores"), field, path);
    auto period = NumberIn(j, "quotaPeriodS", 0.1, kQuotaPeriodRange, field, path);
    if (!count) return count.error();
    if (!speed) return speed.error();
    if (!capacity) return capacity.error();
    if (!nics) return nics.error();
    if (!quota) return quota.error();
    if (!period) return period.error();
    std::string name = j.at("name").get<std::string>();
    std::vector<predict::ClusterHost> hosts;
    for (int k = 1; k <= *count; ++k) {
        hosts.push_back({*count > 1 ? name + std::to_string(k) : name, *cores, *capacity, *speed,
                         *nics, *quota, *period});
    }
    return hosts;
}

Expected<void> LoadLinks(const json& doc, const std::string& path, MachineFile& out) {
    if (!doc.contains("links") || !doc.at("links").is_object()) {
        return FileError(path, "links must map link names to link profile files");
    }
    auto dir = std::filesystem::path(path).parent_path();
    for (const auto& [name, file] : doc.at("links").items()) {
        if (!file.is_string()) return FileError(path, "links." + name + " must be a file path");
        auto profile = predict::ReadLinkProfile((dir / file.get<std::string>()).string());
        if (!profile) return FileError(path, "links." + name + ": " + profile.error().message);
        out.links[name] = *profile;
    }
    return {};
}

Expected<MachineFile> ParseMachine(const json& doc, const std::string& path) {
    MachineFile out;
    predict::Machine& m = out.machine;
    auto known = common::JsonKnownKeys(doc, "machine file '" + path + "'",
                                       {"name", "hosts", "links", "intraHostLink",
                                        "displayReceiveThreads", "placement", "switchBytesPerS"});
    if (!known) return known.error();
    auto name = StringOf(doc, "name", std::filesystem::path(path).stem().string(), "", path);
    if (!name) return name.error();
    m.name = *name;
    if (auto ok = LoadLinks(doc, path, out); !ok) return ok.error();
    if (!doc.contains("hosts") || !doc.at("hosts").is_array() || doc.at("hosts").empty()) {
        return FileError(path, "hosts must be a non-empty list");
    }
    for (size_t h = 0; h < doc.at("hosts").size(); ++h) {
        auto hosts = ParseHost(doc.at("hosts")[h], h, path, out.links);
        if (!hosts) return hosts.error();
        m.hosts.insert(m.hosts.end(), hosts->begin(), hosts->end());
    }
    auto intraHostLink = StringOf(doc, "intraHostLink", "shm", "", path);
    auto threads =
        IntegerIn(doc, "displayReceiveThreads", 1, common::kReceiveThreadsRange, "", path);
    auto placement = StringOf(doc, "placement", "fill", "", path);
    auto switchRate = NumberIn(doc, "switchBytesPerS", 0.0, kSwitchRateRange, "", path);
    if (!switchRate) return switchRate.error();
    m.switchBytesPerS = *switchRate;
    if (!intraHostLink) return intraHostLink.error();
    if (!threads) return threads.error();
    if (!placement) return placement.error();
    m.intraHostLink = *intraHostLink;
    m.displayReceiveThreads = *threads;
    if (*placement != "fill" && *placement != "round-robin") {
        return FileError(
            path, "placement must be \"fill\" or \"round-robin\", got \"" + *placement + "\"");
    }
    m.placement = *placement == "fill" ? predict::Placement::Fill : predict::Placement::RoundRobin;
    if (auto ok = predict::ValidateMachine(m, out.links); !ok)
        return FileError(path, ok.error().message);
    return out;
}

}  // namespace

Expected<MachineFile> ReadMachineFile(const std::string& path) {
    auto doc = common::ReadJsonFile(path, "machine file");
    if (!doc) return doc.error();
    if (!doc->is_object()) return FileError(path, "not a JSON object");
    try {  // a field of the wrong type throws nlohmann::json::type_error
        return ParseMachine(*doc, path);
    } catch (const nlohmann::json::exception& e) {
        return FileError(path, std::string("a field has the wrong type (") + e.what() + ")");
    }
}

Expected<void> ApplyHostfile(const std::string& path, predict::Machine& machine) {
    std::ifstream in(path);
    if (!in) return Error{"hostfile '" + path + "': cannot open it"};
    std::string line;
    std::vector<int> slots;
    const std::regex entry(R"(^\s*([^\s:#]+)(?::(\d+))?\s*(#.*)?$)");
    for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (std::regex_match(line, std::regex(R"(^\s*(#.*)?$)"))) continue;
        if (!std::regex_match(line, m, entry)) {
            return Error{"hostfile '" + path + "' line " + std::to_string(number) +
                         ": expected host or host:slots"};
        }
        auto it = std::find_if(machine.hosts.begin(), machine.hosts.end(),
                               [&](const predict::ClusterHost& h) { return h.name == m[1].str(); });
        if (it == machine.hosts.end()) {
            return Error{"hostfile '" + path + "' line " + std::to_string(number) + ": host '" +
                         m[1].str() + "' is not in machine '" + machine.name + "'"};
        }
        double count = m[2].matched ? std::stod(m[2]) : 1.0;
        if (auto ok = common::CheckRange("slots", count, kHostfileSlotsRange); !ok) {
            return Error{"hostfile '" + path + "' line " + std::to_string(number) + ": " +
                         ok.error().message};
        }
        slots.insert(slots.end(), static_cast<int>(count),
                     static_cast<int>(it - machine.hosts.begin()));
    }
    if (slots.empty()) return Error{"hostfile '" + path + "': names no hosts"};
    machine.hostOfSlot = std::move(slots);
    return {};
}

}  // namespace bfv::predict
