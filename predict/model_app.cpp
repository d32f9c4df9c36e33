#include "predict/model_app.h"

#include <fmt/format.h>

#include "predict/model_validate.h"

namespace bfv::predict {

namespace {

Expected<void> ValidateCalculation(const Calculation& calc) {
    const std::string context = fmt::format("app '{}'", calc.name);
    const bool sends = calc.dvolBytes > 0.0;
    return FirstError({RequireNonNegative(context, "rtexS", calc.rtexS),
                       RequireFraction(context, "cpuFraction", calc.cpuFraction),
                       RequireNonNegative(context, "dvolBytes", calc.dvolBytes),
                       sends ? RequirePositive(context, "msgBytes", calc.msgBytes)
                             : RequireNonNegative(context, "msgBytes", calc.msgBytes)});
}

}  // namespace

Expected<void> ValidateApp(const AppCharacteristics& app) {
    return FirstError(
        {ValidateCalculation(app.terrainServer), ValidateCalculation(app.rayTrace),
         ValidateCalculation(app.display),
         RequirePositive(fmt::format("app '{}'", app.rayTrace.name), "dvolBytes",
                         app.rayTrace.dvolBytes),
         RequireNonNegative("app", "terrainStreamBytesPerS", app.terrainStreamBytesPerS)});
}

AppCharacteristics SeedCase() {
    AppCharacteristics app;
    app.terrainServer = {"terrain server", 0.2, 0.8, 0.25e6, 1024.0};
    app.rayTrace = {"ray trace", 0.6, 1.0, 65536.0, 256.0};
    app.display = {"display", 0.04, 1.0, 0.0, 0.0};
    app.terrainStreamBytesPerS = 0.25e6;
    return app;
}

std::vector<Calculation> SequentialCalculations(const AppCharacteristics& app) {
    return {app.terrainServer, app.rayTrace, app.display};
}

double MessageCount(const Calculation& calc) {
    return calc.dvolBytes > 0.0 ? calc.dvolBytes / calc.msgBytes : 0.0;
}

double CpuS(const Calculation& calc) { return calc.rtexS * calc.cpuFraction; }

double TotalRtexS(std::span<const Calculation> calcs) {
    double rtexS = 0.0;
    for (const Calculation& calc : calcs) rtexS += calc.rtexS;
    return rtexS;
}

double TotalCpuS(std::span<const Calculation> calcs) {
    double cpuS = 0.0;
    for (const Calculation& calc : calcs) cpuS += CpuS(calc);
    return cpuS;
}

double AverageCpuFraction(std::span<const Calculation> calcs) {
    return TotalCpuS(calcs) / TotalRtexS(calcs);
}

double SequentialFps(const AppCharacteristics& app) {
    return 1.0 / TotalRtexS(SequentialCalculations(app));
}

}  // namespace bfv::predict
