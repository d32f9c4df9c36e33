#include "predict/model_comm.h"

#include <fmt/format.h>

#include <cmath>

#include "predict/model_validate.h"

namespace bfv::predict {

Expected<void> ValidateLink(const LinkParams& link, std::string_view name) {
    const std::string context = fmt::format("link '{}'", name);
    return FirstError({RequirePositive(context, "msgSetupS", link.msgSetupS),
                       RequirePositive(context, "alcbwBytesPerS", link.alcbwBytesPerS),
                       RequirePositive(context, "apbbwBytesPerS", link.apbbwBytesPerS)});
}

Expected<void> ValidateBlockLink(const BlockLinkParams& link, std::string_view name) {
    const std::string context = fmt::format("link '{}'", name);
    return FirstError({RequirePositive(context, "msgSetupS", link.msgSetupS),
                       RequirePositive(context, "blkSetupS", link.blkSetupS),
                       RequirePositive(context, "blkBytes", link.blkBytes),
                       RequirePositive(context, "llcbwBytesPerS", link.llcbwBytesPerS),
                       RequirePositive(context, "iobbwBytesPerS", link.iobbwBytesPerS)});
}

double MessageCount(double dvolBytes, double msgBytes) { return dvolBytes / msgBytes; }

double A2abwBytesPerS(const LinkParams& link, double msgBytes) {
    return msgBytes / (link.msgSetupS + msgBytes / link.alcbwBytesPerS);
}

double MsgSetupFromMeasurementS(double msgBytes, double a2abwBytesPerS, double alcbwBytesPerS) {
    return msgBytes / a2abwBytesPerS - msgBytes / alcbwBytesPerS;
}

double TransferS(const LinkParams& link, double dvolBytes, double msgBytes) {
    return MessageCount(dvolBytes, msgBytes) * link.msgSetupS + dvolBytes / link.alcbwBytesPerS;
}

double CommCpuFraction(const LinkParams& link, double msgBytes) {
    const double cpuS = link.msgSetupS + msgBytes / link.apbbwBytesPerS;
    return cpuS / (link.msgSetupS + msgBytes / link.alcbwBytesPerS);
}

double LargeMessageCpuFraction(const LinkParams& link) {
    return link.alcbwBytesPerS / link.apbbwBytesPerS;
}

double HalfPerformanceBytes(const LinkParams& link) { return link.msgSetupS * link.alcbwBytesPerS; }

double BlockCount(const BlockLinkParams& link, double msgBytes) {
    return std::ceil(msgBytes / link.blkBytes);
}

namespace {

// Setup seconds of one message under the block model: MSGSETUP + #BLKS * BLKSETUP.
double BlockSetupS(const BlockLinkParams& link, double msgBytes) {
    return link.msgSetupS + BlockCount(link, msgBytes) * link.blkSetupS;
}

}  // namespace

double BlockTransferS(const BlockLinkParams& link, double messageCount, double msgBytes) {
    return messageCount * (BlockSetupS(link, msgBytes) + msgBytes / link.llcbwBytesPerS);
}

double BlockCpuFraction(const BlockLinkParams& link, double msgBytes) {
    const double setupS = BlockSetupS(link, msgBytes);
    return (setupS + msgBytes / link.iobbwBytesPerS) / (setupS + msgBytes / link.llcbwBytesPerS);
}

double BlockA2abwBytesPerS(const BlockLinkParams& link, double msgBytes) {
    return msgBytes / BlockTransferS(link, 1.0, msgBytes);
}

double BlockAlcbwBytesPerS(const BlockLinkParams& link) {
    return link.blkBytes / (link.blkSetupS + link.blkBytes / link.llcbwBytesPerS);
}

}  // namespace bfv::predict
