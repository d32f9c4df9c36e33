// bfv: the command-line front end. Thin: every subcommand lives in its own file.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <regex>
#include <string>

#include "pipeline/launcher.h"
#include "tools/commands.h"

namespace {

// When the first argument names no subcommand (and is no option): "unknown command
// 'frobnicate'; the commands are: render, import, ..."; else "". CLI11 alone would only say
// that a subcommand is required.
std::string UnknownCommand(CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return "";
    std::string names;
    for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        if (command->check_name(argv[1])) return "";
        names += (names.empty() ? "" : ", ") + command->get_name();
    }
    return std::string("unknown command '") + argv[1] + "'; the commands are: " + names +
           " (`bfv --help` describes them)";
}

// CLI11's answer to an option given more than once ("--frames: At Most 1 required but
// received 2") in words: "bfv render: --frames was given twice; give it once". "" for every
// other error.
std::string RepeatedOption(CLI::App& app, const CLI::Error& error) {
    static const std::regex kAtMostOne(R"((\S+): At Most 1 required but received (\d+))");
    std::smatch m;
    std::string what = error.what();
    if (!std::regex_match(what, m, kAtMostOne)) return "";
    std::string command = "bfv";
    for (CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
    std::string times = m[2] == "2" ? "twice" : m[2].str() + " times";
    return command + ": " + m[1].str() + " was given " + times + "; give it once";
}

}  // namespace

int main(int argc, char** argv) {
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
    if (std::string unknown = UnknownCommand(app, argc, argv); !unknown.empty()) {
        if (bfv::pipeline::IsLeadProcess()) std::fprintf(stderr, "bfv: %s\n", unknown.c_str());
        return static_cast<int>(CLI::ExitCodes::ExtrasError);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Error& e) {
        // Under mpiexec every rank parses the same command line: let one of them speak.
        if (!bfv::pipeline::IsLeadProcess()) return e.get_exit_code();
        if (std::string repeated = RepeatedOption(app, e); !repeated.empty()) {
            std::fprintf(stderr, "%s\n", repeated.c_str());
            return e.get_exit_code();
        }
        return app.exit(e);
    }
    return 0;
}
