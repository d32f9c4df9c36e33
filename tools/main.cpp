// bfv: the command-line front end. Thin: every subcommand lives in its own file.

#include <CLI/CLI.hpp>

#include "tools/commands.h"
#include "tools/render.h"

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
    try {
        app.parse(argc, argv);
    } catch (const CLI::Error& e) {
        // Under mpiexec every rank parses the same command line: let one of them speak.
        if (!bfv::tools::IsLeadProcess()) return e.get_exit_code();
        return app.exit(e);
    }
    return 0;
}
