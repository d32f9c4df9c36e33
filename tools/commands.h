#pragma once

// The bfv subcommands. Each Add*Command registers one subcommand on the root CLI11 app with
// its options and a callback that runs it; a failing command prints one clear message to
// stderr and throws CLI::RuntimeError(exit code), which main turns into the process exit code.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/ranges.h"

namespace bfv::tools {

/// Adds subcommand `name` whose `--help` shows all of `help`, while `bfv --help` lists only its
/// first line.
inline CLI::App* AddSubcommand(CLI::App& app, const std::string& name, const std::string& help) {
    size_t newline = help.find('\n');
    CLI::App* cmd = app.add_subcommand(name, help.substr(0, newline));
    if (newline != std::string::npos) cmd->footer(help.substr(newline + 1));
    return cmd;
}

/// ToString of every value of `values` (e.g. common::kColumnCodecs): the names an option's
/// CLI::IsMember check accepts, so that the list lives in one place.
template <typename T, std::size_t N>
std::vector<std::string> NamesOf(const T (&values)[N]) {
    std::vector<std::string> names;
    for (const T& value : values) names.push_back(ToString(value));
    return names;
}

/// A CLI11 check that an option's number lies in `range`; CLI11 prefixes the option's name:
/// "--finest-spacing: must be > 0 and <= 100000 m, got 0". Text that is not a number is left
/// to CLI11's own conversion error. For options no other path sets: `bfv render`'s go through
/// common::ValidateRenderOptions instead, which also sees values from files.
inline CLI::Validator InRange(const common::Range& range) {
    auto check = [range](std::string& text) -> std::string {
        char* end = nullptr;
        double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || range.Contains(value)) return "";
        return "must be " + range.Describe() + ", got " + text;
    };
    return CLI::Validator(check, "(" + range.Describe() + ")");
}

/// `bfv import`: converts a DEM into the project's terrain format.
void AddImportCommand(CLI::App& app);

/// `bfv render`: flies the viewpoint and renders, distributed over MPI ranks or sequential.
void AddRenderCommand(CLI::App& app);

/// `bfv commbench`: measures message costs between MPI ranks and fits the link parameters.
void AddCommbenchCommand(CLI::App& app);

/// `bfv info`: describes a tile pyramid file and verifies its tiles' checksums.
void AddInfoCommand(CLI::App& app);

/// `bfv predict`: the analytical schedule predictor: FPS for each N on a described machine.
void AddPredictCommand(CLI::App& app);

}  // namespace bfv::tools
