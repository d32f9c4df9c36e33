#include "predict/machine_file.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/json_file.h"

namespace bfv::predict {

namespace {

using nlohmann::json;

Error FileError(const std::string& path, const std::string& what) {
    return Error{"machine file '" + path + "': " + what};
}

Expected<int> PositiveInt(const json& j, const char* key, int fallback, const std::string& field,
                          const std::string& path) {
    if (!j.contains(key)) return fallback;
    if (!j.at(key).is_number_integer() || j.at(key).get<int>() < 1) {
        return FileError(path, field + key + " must be a positive integer");
    }
    return j.at(key).get<int>();
}

Expected<std::vector<predict::ClusterHost>> ParseHost(const json& j, size_t index,
                                                      const std::string& path) {
    std::string field = "hosts[" + std::to_string(index) + "].";
    if (!j.is_object() || !j.contains("name") || !j.at("name").is_string()) {
        return FileError(path, field + "name must be a string");
    }
    auto cores = PositiveInt(j, "cores", 1, field, path);
    auto count = PositiveInt(j, "count", 1, field, path);
    if (!cores) return cores.error();
    if (!count) return count.error();
    double speed = j.value("cpuSpeed", 1.0);
    if (!(speed > 0.0)) return FileError(path, field + "cpuSpeed must be positive");
    double capacity = j.value("capacityCores", 0.0);
    std::vector<std::string> nics = j.value("nics", std::vector<std::string>{});
    std::string name = j.at("name").get<std::string>();
    std::vector<predict::ClusterHost> hosts;
    for (int k = 1; k <= *count; ++k) {
        hosts.push_back(
            {*count > 1 ? name + std::to_string(k) : name, *cores, capacity, speed, nics});
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
    m.name = doc.value("name", std::filesystem::path(path).stem().string());
    if (!doc.contains("hosts") || !doc.at("hosts").is_array() || doc.at("hosts").empty()) {
        return FileError(path, "hosts must be a non-empty list");
    }
    for (size_t h = 0; h < doc.at("hosts").size(); ++h) {
        auto hosts = ParseHost(doc.at("hosts")[h], h, path);
        if (!hosts) return hosts.error();
        m.hosts.insert(m.hosts.end(), hosts->begin(), hosts->end());
    }
    m.intraHostLink = doc.value("intraHostLink", "shm");
    auto threads = PositiveInt(doc, "displayReceiveThreads", 1, "", path);
    if (!threads) return threads.error();
    m.displayReceiveThreads = *threads;
    std::string placement = doc.value("placement", "fill");
    if (placement != "fill" && placement != "round-robin") {
        return FileError(
            path, "placement must be \"fill\" or \"round-robin\", got \"" + placement + "\"");
    }
    m.placement = placement == "fill" ? predict::Placement::Fill : predict::Placement::RoundRobin;
    if (auto ok = LoadLinks(doc, path, out); !ok) return ok.error();
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
        int count = m[2].matched ? std::stoi(m[2]) : 1;
        slots.insert(slots.end(), count, static_cast<int>(it - machine.hosts.begin()));
    }
    if (slots.empty()) return Error{"hostfile '" + path + "': names no hosts"};
    machine.hostOfSlot = std::move(slots);
    return {};
}

}  // namespace bfv::predict
