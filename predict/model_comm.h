#pragma once

// Cost of SND/RCV between two calculations: section 3 of the source paper (eqs. 9-19; Baer and
// Decato, "Software Performance Modeling in PC Clusters"), as docs/predictor.md reconstructs it.
// All sizes are bytes, all rates bytes per second, all times seconds; the paper's MB is 10^6
// bytes.

#include <string_view>

#include "common/expected.h"

namespace bfv::predict {

/// Measured parameters of one link kind (shared memory, TCP, LAM/MPI, an emulated slow link):
/// the simplified (Hockney) model of eqs. 16-19. Table 2 of the source paper gives
/// LAM/MPI {0.47e-3, 2.1e6, 5.3e6} and TCP/IP {0.4e-3, 2.5e6, 11e6} on 10/100 Mbit Ethernet.
struct LinkParams {
    double msgSetupS = 0.0;       // MSGSETUP: fixed cost of one message, seconds
    double alcbwBytesPerS = 0.0;  // ALCBW: application-level bandwidth of very large messages
    double apbbwBytesPerS = 0.0;  // APBBW: application bus bandwidth, measured in loopback
};

/// The fuller block model of eqs. 10-14: a message travels as ceil(MSGZ / BLKSZ) blocks, each
/// with its own setup, over a low-level link of bandwidth LLCBW; IOBBW is the I/O bus bandwidth
/// that bounds the CPU time spent moving the bytes (eq. 12 holds for LLCBW < IOBBW).
struct BlockLinkParams {
    double msgSetupS = 0.0;       // MSGSETUP, seconds per message
    double blkSetupS = 0.0;       // BLKSETUP, seconds per block
    double blkBytes = 0.0;        // BLKSZ, bytes per block
    double llcbwBytesPerS = 0.0;  // LLCBW: low-level link bandwidth
    double iobbwBytesPerS = 0.0;  // IOBBW: I/O bus bandwidth
};

/// Checks that every field of a link is positive and finite. `name` labels the link in the
/// message: "link 'tcp': alcbwBytesPerS must be > 0, got -3".
Expected<void> ValidateLink(const LinkParams& link, std::string_view name);

/// Checks a block-model link likewise (every field positive and finite).
Expected<void> ValidateBlockLink(const BlockLinkParams& link, std::string_view name);

/// Number of messages #MSG = DVOL / MSGZ (eq. 9): fractional, as the paper treats MSGZ as an
/// average message size. Requires msgBytes > 0.
double MessageCount(double dvolBytes, double msgBytes);

/// Application-to-application bandwidth in bytes/s for messages of msgBytes (eq. 16, the
/// simplified upper envelope of eq. 13): MSGZ / (MSGSETUP + MSGZ / ALCBW).
double A2abwBytesPerS(const LinkParams& link, double msgBytes);

/// MSGSETUP in seconds from two measurements (eq. 17): the bandwidth a2abwBytesPerS measured
/// with small messages of msgBytes, and ALCBW measured with very large messages.
double MsgSetupFromMeasurementS(double msgBytes, double a2abwBytesPerS, double alcbwBytesPerS);

/// Wall time in seconds to move dvolBytes in messages of msgBytes (eq. 18), the same at the
/// sending and the receiving end: #MSG * MSGSETUP + DVOL / ALCBW.
double TransferS(const LinkParams& link, double dvolBytes, double msgBytes);

/// CPU fraction (0..1) of a SND or RCV with messages of msgBytes (eq. 19):
/// (MSGSETUP + MSGZ / APBBW) / (MSGSETUP + MSGZ / ALCBW). Counts all setup as CPU time, so it
/// overstates small-message CPU use against Table 1 (see LargeMessageCpuFraction).
double CommCpuFraction(const LinkParams& link, double msgBytes);

/// The large-message limit of eq. 19, ALCBW / APBBW: the "CPU% for message sizes above 100
/// bytes" of Table 2 (LAM/MPI 2.1/5.3 = 0.40, TCP/IP 2.5/11 = 0.23), the value the paper's
/// schedules (eqs. 20-22) use for every message size.
double LargeMessageCpuFraction(const LinkParams& link);

/// Half-performance message size n½ in bytes: the MSGZ at which eq. 16 reaches ALCBW / 2,
/// MSGSETUP * ALCBW (Hockney's n½).
double HalfPerformanceBytes(const LinkParams& link);

/// Number of blocks #BLKS a message of msgBytes needs (eq. 10), counting a partial last
/// block (#LEFT > 0) as one more block since it pays a block setup too.
double BlockCount(const BlockLinkParams& link, double msgBytes);

/// Wall time in seconds of #MSG messages of msgBytes under the block model (eq. 11):
/// #MSG * (MSGSETUP + #BLKS * BLKSETUP + MSGZ / LLCBW).
double BlockTransferS(const BlockLinkParams& link, double messageCount, double msgBytes);

/// CPU fraction (0..1) of a SND or RCV under the block model (eq. 12), valid for
/// LLCBW < IOBBW: (MSGSETUP + #BLKS*BLKSETUP + MSGZ/IOBBW) / (... + MSGZ/LLCBW).
double BlockCpuFraction(const BlockLinkParams& link, double msgBytes);

/// Application-to-application bandwidth in bytes/s under the block model (eq. 13), with the
/// bandwidth drops one BLKSZ apart.
double BlockA2abwBytesPerS(const BlockLinkParams& link, double msgBytes);

/// ALCBW in bytes/s implied by the block model (eq. 14): BLKSZ / (BLKSETUP + BLKSZ / LLCBW),
/// the large-message limit of eq. 13.
double BlockAlcbwBytesPerS(const BlockLinkParams& link);

}  // namespace bfv::predict
