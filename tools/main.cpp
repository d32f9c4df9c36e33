// bfv: the command-line front end. Thin: every subcommand lives in its own file.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "pipeline/launcher.h"
#include "pipeline/rank_keeper.h"
#include "tools/commands.h"

namespace {

// Every subcommand of `app` (CLI11's get_subcommands() alone lists only the parsed ones).
std::vector<CLI::App*> AllSubcommands(CLI::App& app) {
    return app.get_subcommands([](CLI::App*) { return true; });
}

// Calls `visit` on every option of `app` and of its subcommands and option groups.
void ForEachOption(CLI::App& app, const std::function<void(CLI::Option&)>& visit) {
    for (CLI::Option* option : app.get_options()) visit(*option);
    for (CLI::App* sub : AllSubcommands(app)) {
        ForEachOption(*sub, visit);
    }
}

// What CLI11 says, after the option's name, of an empty value (see RefuseEmptyValues).
constexpr const char* kEmptyValue = "needs a value, got an empty one";

// Adds to every option that takes a value a check that the value is not empty: CLI11 reads
// `--frames ''` as 0 (300 frames headless) and `--record ''` as no file, without a word. The
// check fails as "--frames: needs a value, got an empty one" (worded by EmptyValue).
void RefuseEmptyValues(CLI::App& app) {
    CLI::Validator nonEmpty([](std::string& text) { return text.empty() ? kEmptyValue : ""; }, "");
    ForEachOption(app, [&](CLI::Option& option) {
        if (option.get_expected_min() > 0) option.check(nonEmpty);
    });
}

// The commands' names, comma-separated: "render, import, info, commbench, predict".
std::string CommandNames(CLI::App& app) {
    std::string names;
    for (CLI::App* command : AllSubcommands(app)) {
        names += (names.empty() ? "" : ", ") + command->get_name();
    }
    return names;
}

// When the first argument names no subcommand and no option of bfv itself: "unknown command
// 'frobnicate'; the commands are: render, import, ..." or "unknown option '--bogus'; ...",
// saying which command an option belongs to when one has it; else "". CLI11 alone would only
// say that a subcommand is required.
std::string UnknownCommand(CLI::App& app, int argc, char** argv) {
    if (argc < 2) return "";
    std::string first = argv[1];
    const std::string help = " (`bfv --help` describes them)";
    if (first.empty() || first[0] != '-') {
        for (CLI::App* command : AllSubcommands(app)) {
            if (command->check_name(first)) return "";
        }
        return "unknown command '" + first + "'; the commands are: " + CommandNames(app) + help;
    }
    std::string name = first.substr(0, first.find('='));
    for (CLI::Option* option : app.get_options()) {
        if (option->check_name(name)) return "";
    }
    std::string owners;
    for (CLI::App* command : AllSubcommands(app)) {
        bool has = false;
        ForEachOption(*command, [&](CLI::Option& option) { has = has || option.check_name(name); });
        if (has) owners += (owners.empty() ? "bfv " : " and bfv ") + command->get_name();
    }
    if (!owners.empty()) {
        return name + " is an option of " + owners + ": give the command first, as in `" +
               owners.substr(0, owners.find(" and ")) + " " + name + " ...`";
    }
    return "unknown option '" + name + "'; give a command first: " + CommandNames(app) + help;
}

// "bfv" and the subcommand parsed: "bfv render".
std::string CommandLineName(CLI::App& app) {
    std::string command = "bfv";
    for (CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
    return command;
}

// RefuseEmptyValues's failure ("--frames: needs a value, got an empty one") in the commands'
// style: "bfv render: --frames needs a value, got an empty one". "" for every other error.
std::string EmptyValue(CLI::App& app, const CLI::Error& error) {
    static const std::regex kEmpty(std::string(R"((\S+): )") + kEmptyValue);
    std::smatch m;
    std::string what = error.what();
    if (!std::regex_match(what, m, kEmpty)) return "";
    return CommandLineName(app) + ": " + m[1].str() + " " + kEmptyValue;
}

// CLI11's answer to an option given more than once ("--frames: At Most 1 required but
// received 2") in words: "bfv render: --frames was given twice; give it once". "" for every
// other error.
std::string RepeatedOption(CLI::App& app, const CLI::Error& error) {
    static const std::regex kAtMostOne(R"((\S+): At Most 1 required but received (\d+))");
    std::smatch m;
    std::string what = error.what();
    if (!std::regex_match(what, m, kAtMostOne)) return "";
    std::string times = m[2] == "2" ? "twice" : m[2].str() + " times";
    return CommandLineName(app) + ": " + m[1].str() + " was given " + times + "; give it once";
}

}  // namespace

int main(int argc, char** argv) {
    bfv::pipeline::RunKeeperIfAsked(argc, argv);  // a rank's keeper: never returns
    CLI::App app{
        "bfv: a real-time distributed terrain renderer. A terrain server (MPI rank 0) streams "
        "terrain posts, ranks 1..N-2 ray-cast slices of the screen, rank N-1 shows the frames.\n"
        "Run `bfv <command> --help` for a command's options."};
    app.require_subcommand(1);
    bfv::tools::AddRenderCommand(app);
    bfv::tools::AddImportCommand(app);
    bfv::tools::AddInfoCommand(app);
    bfv::tools::AddCommbenchCommand(app);
    bfv::tools::AddPredictCommand(app);
    RefuseEmptyValues(app);
    if (std::string unknown = UnknownCommand(app, argc, argv); !unknown.empty()) {
        if (bfv::pipeline::IsLeadProcess()) std::fprintf(stderr, "bfv: %s\n", unknown.c_str());
        return static_cast<int>(CLI::ExitCodes::ExtrasError);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Error& e) {
        // Under mpiexec every rank parses the same command line: let one of them speak.
        if (!bfv::pipeline::IsLeadProcess()) return e.get_exit_code();
        for (const std::string& said : {RepeatedOption(app, e), EmptyValue(app, e)}) {
            if (said.empty()) continue;
            std::fprintf(stderr, "%s\n", said.c_str());
            return e.get_exit_code();
        }
        return app.exit(e);
    }
    return 0;
}
