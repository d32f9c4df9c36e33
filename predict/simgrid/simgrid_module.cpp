#include "predict/simgrid/simgrid_module.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <exception>
#include <set>
#include <simgrid/s4u.hpp>
#include <vector>

namespace bfv::predict {

namespace {

namespace sg4 = simgrid::s4u;

constexpr double kFlopsPerCpuS = 1e9;  // a host of cpuSpeed 1 does 1e9 flops per CPU second
constexpr double kPollingCpuS = 1e6;   // a waiting actor's polling: more than any wait takes

// Built with a sanitizer (GCC's macros, clang's __has_feature): SimGrid's actors then run as
// threads, which the sanitizers follow, instead of swapped stacks, which they do not.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
constexpr bool kUnderSanitizer =
    __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
constexpr bool kUnderSanitizer = false;
#endif

// A queue between two actors: items pushed by one and taken, in order, by another that waits
// on the semaphore until one is there.
template <class T>
struct Channel {
    std::deque<T> items;
    sg4::SemaphorePtr ready = sg4::Semaphore::create(0);

    void Push(const T& item) {
        items.push_back(item);
        ready->release();
    }
    T Take() {
        ready->acquire();
        T item = items.front();
        items.pop_front();
        return item;
    }
};

// A command for frame `frame` that reaches its tracer at atS (it carries only latency).
struct Command {
    int frame = 0;
    double atS = 0.0;
};

// A message of tracer `tracer`'s columns of frame `frame`, arrived at the display.
struct Arrival {
    int tracer = 0;
    int frame = 0;
};

// The simulated run: the platform's hosts, and the channels between the actors.
class FrameSchedule {
  public:
    FrameSchedule(const FrameCosts& costs, const Machine& machine,
                  const std::map<std::string, LinkProfile>& links, int frames)
        : costs_(costs),
          machine_(machine),
          waits_(links.at(machine.intraHostLink)),
          frames_(frames) {
        BuildPlatform(links);
        FindCrowded();
        FindTurns();
        int tracers = static_cast<int>(costs.tracers.size());
        commands_.resize(tracers + 1);  // the last: the terrain server's
        outboxes_.resize(tracers);
        inboxes_.resize(machine.displayReceiveThreads);
        for (int f = 0; f < frames; ++f) {
            frameReady_.push_back(sg4::Semaphore::create(0));
            messagesLeft_.push_back(0);
        }
        for (const TracerFrameCost& c : costs.tracers) {
            for (int f = 0; f < frames; ++f) messagesLeft_[f] += MessagesOf(c);
        }
        frameDoneS_.assign(frames, 0.0);
    }

    // Starts every actor; Engine::run plays them out.
    void Start() {
        int display = static_cast<int>(costs_.hostOf.size()) - 1;
        sg4::Host* displayHost = hosts_.at(costs_.hostOf[display]);
        for (int t = 0; t < static_cast<int>(costs_.tracers.size()); ++t) {
            sg4::Host* host = hosts_.at(costs_.tracers[t].host);
            sg4::Actor::create("tracer" + std::to_string(t + 1), host, [this, t] { Tracer(t); });
            sg4::Actor::create("sender" + std::to_string(t + 1), host, [this, t] { Sender(t); });
        }
        for (int k = 0; k < machine_.displayReceiveThreads; ++k) {
            sg4::Actor::create("receive" + std::to_string(k), displayHost,
                               [this, k] { ReceiveThread(k); });
        }
        sg4::Actor::create("display", displayHost, [this] { Display(); });
        sg4::Actor::create("server", hosts_.at(costs_.hostOf[0]), [this] { Server(); });
    }

    const std::vector<double>& FrameDoneS() const { return frameDoneS_; }

  private:
    static int MessagesOf(const TracerFrameCost& c) {
        return std::max(1, static_cast<int>(std::ceil(c.messages - 1e-9)));
    }

    // One core's flops per second on `host`.
    double SpeedOf(int host) const { return machine_.hosts[host].cpuSpeed * kFlopsPerCpuS; }

    // Whether `host` has more ranks than cores (FindCrowded): its waits then cost their busy
    // host's share.
    bool Crowded(int host) const { return crowded_.count(host) != 0; }

    // The hosts with more ranks than cores, found once: every wait asks.
    void FindCrowded() {
        for (const auto& entry : hosts_) {
            if (std::count(costs_.hostOf.begin(), costs_.hostOf.end(), entry.first) >
                machine_.hosts[entry.first].cores) {
                crowded_.insert(entry.first);
            }
        }
    }

    // The crowded hosts' cores, where the intra-host link's profile measured the scheduler's
    // tick: each core a semaphore its tracers take in turns (TurnWork), each tracer starting on
    // the core the model's CrowdedMakespanS starts it on (PlaceOnCores, by its CPU a frame).
    // Elsewhere SimGrid shares a host's CPU smoothly among the actors on it.
    void FindTurns() {
        if (waits_.schedulerTickS <= 0.0) return;
        for (int host : crowded_) {
            std::vector<int> tracers;
            std::vector<double> wholeCpuS;
            for (int t = 0; t < static_cast<int>(costs_.tracers.size()); ++t) {
                const TracerFrameCost& c = costs_.tracers[t];
                if (c.host != host) continue;
                tracers.push_back(t);
                wholeCpuS.push_back(c.tileReceiveCpuS + c.traceCpuS + c.sendCpuS);
            }
            const int cores = machine_.hosts[host].cores;
            std::vector<sg4::SemaphorePtr>& turns = coreTurns_[host];
            for (int c = 0; c < cores; ++c) turns.push_back(sg4::Semaphore::create(1));
            const CorePlacement placed = PlaceOnCores(wholeCpuS, cores);
            for (std::size_t i = 0; i < tracers.size(); ++i) coreOf_[tracers[i]] = placed.coreOf[i];
        }
    }

    // CPU work of cpuS seconds (on `host`, where it was costed) at most one core's speed, then
    // waiting of waitS.
    void Work(int host, double cpuS, double waitS) {
        if (cpuS > 0.0) {
            double speed = SpeedOf(host);
            sg4::this_actor::exec_init(cpuS * speed)->set_bound(speed)->wait();
            cpuUsedS_[host] += cpuS;
        }
        if (waitS > 0.0) sg4::this_actor::sleep_for(waitS);
    }

    // Tracer t's CPU work of cpuS seconds on `host`, then waiting of waitS. Where the host's
    // cores take turns (FindTurns), the work holds its core a scheduler tick at a time: after a
    // tick it gives the core up, to a tracer waiting there if there is one, and then goes on
    // on a free core if one is free, else waits its turn where it was. So a tracer waits for
    // its own core while another core may stand idle (the kernel does not move a thread that
    // has just run: measured on 2 cores, three tracers of 640x360 kept the cores 74% busy,
    // docs/benchmarking.md), and work longer than a tick spreads over the cores. The display's
    // and the terrain server's short pieces of work run beside the turns, on every core alike.
    void TurnWork(int t, int host, double cpuS, double waitS) {
        auto found = coreOf_.find(t);
        if (found == coreOf_.end()) return Work(host, cpuS, waitS);
        std::vector<sg4::SemaphorePtr>& turns = coreTurns_.at(host);
        int core = found->second;
        for (double leftS = cpuS; leftS > 0.0;) {
            const double sliceS = std::min(leftS, waits_.schedulerTickS);
            turns[core]->acquire();
            Work(host, sliceS, 0.0);
            turns[core]->release();
            leftS -= sliceS;
            if (leftS > 0.0 && turns[core]->would_block()) {
                auto free =
                    std::find_if(turns.begin(), turns.end(),
                                 [](const sg4::SemaphorePtr& c) { return !c->would_block(); });
                if (free != turns.end()) core = static_cast<int>(free - turns.begin());
            }
        }
        if (waitS > 0.0) sg4::this_actor::sleep_for(waitS);
    }

    // On a host with a CPU quota, what a rank woken by a message waits for the next period
    // when the quota is spent (QuotaHoldS), with the host's quota used as far as the run so far
    // has used it (its ranks' work and polling over the quota's CPU time since the start).
    void QuotaHold(int host) {
        const ClusterHost& h = machine_.hosts[host];
        double nowS = sg4::Engine::get_clock();
        if (h.cpuQuotaCores <= 0.0 || nowS <= 0.0) return;
        int busyRanks =
            static_cast<int>(std::count(costs_.hostOf.begin(), costs_.hostOf.end(), host));
        double use = cpuUsedS_[host] / (CapacityCores(h) * nowS);
        double holdS = QuotaHoldS(h, busyRanks, use);
        if (holdS > 0.0) sg4::this_actor::sleep_for(holdS);
    }

    // Waits (with `wait`) as bfv's ranks wait: testing and sleeping in turn, which takes the
    // share of a core on `host` that the intra-host link's profile measured for a wait as long
    // as this actor's last (LinkProfile::WaitCpuFraction; on a crowded host, its busy host's),
    // times `scale` (RankBudget::waitCpuScale); `lastWaitS` is updated.
    template <class Wait>
    void Waiting(int host, double& lastWaitS, Wait wait, double scale = 1.0) {
        double share = scale * waits_.WaitCpuFraction(lastWaitS, Crowded(host));
        double startS = sg4::Engine::get_clock();
        sg4::ExecPtr polling;
        if (share > 0.0) {
            polling = sg4::this_actor::exec_init(kPollingCpuS * SpeedOf(host));
            polling->set_bound(share * SpeedOf(host));
            polling->start();
        }
        wait();
        if (polling) {
            cpuUsedS_[host] +=
                (kPollingCpuS * SpeedOf(host) - polling->get_remaining()) / SpeedOf(host);
            polling->cancel();
        }
        lastWaitS = sg4::Engine::get_clock() - startS;
    }

    sg4::Link* CreateLink(sg4::NetZone* zone, const std::string& name, double bytesPerS,
                          double latencyS) {
        sg4::Link* link = zone->create_link(name, bytesPerS);
        link->set_latency(latencyS);
        return link->seal();
    }

    // Hosts of the ranks, an end point per display NIC (and one for the intra-host link) that
    // the tracers' columns travel to, and the routes there: the tracer host's own NIC (at its
    // sustained rate, no latency), the switch backplane if it is shared, and the display's NIC
    // (its sustained rate, MSGSETUP as latency).
    void BuildPlatform(const std::map<std::string, LinkProfile>& links) {
        sg4::NetZone* zone = sg4::create_full_zone("cluster");
        for (int h : costs_.hostOf) {
            if (hosts_.count(h)) continue;
            // One CPU resource of the host's capacity (its cores' work together, below their
            // count on SMT or a virtual machine's vCPUs); Work bounds each actor to a core.
            hosts_[h] = zone->create_host("host" + std::to_string(h),
                                          SpeedOf(h) * CapacityCores(machine_.hosts[h]))
                            ->seal();
        }
        sg4::Link* backplane = machine_.switchBytesPerS > 0.0
                                   ? CreateLink(zone, "switch", machine_.switchBytesPerS, 0.0)
                                   : nullptr;
        std::map<int, sg4::Link*> uplinks;
        std::map<std::pair<int, int>, bool> routed;  // (tracer host, end point) pairs
        for (const TracerFrameCost& c : costs_.tracers) {
            int end = c.displayNic;  // -1: the intra-host link's end point
            if (!endPoints_.count(end)) {
                std::string name = end < 0 ? "local" : "nic" + std::to_string(end);
                endPoints_[end] = zone->create_host(name, kFlopsPerCpuS)->seal();
                displayLinks_[end] = CreateLink(zone, name + "-link", c.receiveLink.alcbwBytesPerS,
                                                c.receiveLink.msgSetupS);
            }
            if (routed[{c.host, end}]) continue;
            routed[{c.host, end}] = true;
            std::vector<sg4::LinkInRoute> route;
            const auto& nics = machine_.hosts[c.host].nics;
            if (end >= 0 && !nics.empty()) {
                if (!uplinks.count(c.host)) {
                    LinkParams up = StreamParams(links.at(nics[0]), costs_.messageBytes, true);
                    uplinks[c.host] =
                        CreateLink(zone, "up" + std::to_string(c.host), up.alcbwBytesPerS, 0.0);
                }
                route.emplace_back(uplinks[c.host]);
            }
            if (end >= 0 && backplane) route.emplace_back(backplane);
            route.emplace_back(displayLinks_[end]);
            zone->add_route(hosts_[c.host]->get_netpoint(), endPoints_[end]->get_netpoint(),
                            nullptr, nullptr, route, false);
        }
        zone->seal();
    }

    void Tracer(int t) {
        const TracerFrameCost& c = costs_.tracers[t];
        double lastWaitS = 0.0;
        for (int f = 0; f < frames_; ++f) {
            Command command;
            Waiting(c.host, lastWaitS, [&] {
                command = commands_[t].Take();
                double now = sg4::Engine::get_clock();
                if (command.atS > now) sg4::this_actor::sleep_for(command.atS - now);
            });
            QuotaHold(c.host);
            // The frame's CPU in one piece (the tiles' decoding, the trace, the send), then the
            // time the decoding and the trace spend off the CPU.
            TurnWork(t, c.host, c.tileReceiveCpuS + c.traceCpuS + c.sendCpuS,
                     c.tileReceiveS - c.tileReceiveCpuS + c.traceS - c.traceCpuS);
            outboxes_[t].Push(command.frame);
        }
    }

    // Moves a tracer's columns, a message after another, to the display's end point.
    void Sender(int t) {
        const TracerFrameCost& c = costs_.tracers[t];
        int messages = MessagesOf(c);
        auto bytes = static_cast<std::uint64_t>(std::max(1.0, std::round(c.wireBytes / messages)));
        sg4::Host* from = hosts_.at(c.host);
        sg4::Host* to = endPoints_.at(c.displayNic);
        for (int f = 0; f < frames_; ++f) {
            int frame = outboxes_[t].Take();
            for (int m = 0; m < messages; ++m) {
                sg4::Comm::sendto(from, to, bytes);
                inboxes_[c.receiveThread].Push({t, frame});
            }
        }
    }

    void ReceiveThread(int k) {
        int expected = 0;
        for (const TracerFrameCost& c : costs_.tracers) {
            if (c.receiveThread == k) expected += MessagesOf(c) * frames_;
        }
        int displayHost = costs_.hostOf.back();
        double lastWaitS = 0.0;
        for (int i = 0; i < expected; ++i) {
            Arrival a;
            Waiting(displayHost, lastWaitS, [&] { a = inboxes_[k].Take(); });
            const TracerFrameCost& c = costs_.tracers[a.tracer];
            Work(displayHost, c.receiveCpuS / MessagesOf(c), 0.0);
            if (--messagesLeft_[a.frame] == 0) frameReady_[a.frame]->release();
        }
    }

    // The terrain server's work of each frame, once its command is there.
    void Server() {
        double lastWaitS = 0.0;
        for (int f = 0; f < frames_; ++f) {
            Waiting(
                costs_.hostOf[0], lastWaitS, [&] { commands_.back().Take(); }, kServerWaitCpuScale);
            Work(costs_.hostOf[0], costs_.serverCpuS, costs_.serverS - costs_.serverCpuS);
        }
    }

    void SendCommand(int frame) {
        double now = sg4::Engine::get_clock();
        for (int t = 0; t < static_cast<int>(costs_.tracers.size()); ++t) {
            commands_[t].Push({frame, now + costs_.tracers[t].receiveLink.msgSetupS});
        }
        commands_.back().Push({frame, now});
    }

    // Sends frame f+1's command before it takes frame f in, then does its own work.
    void Display() {
        int displayHost = costs_.hostOf.back();
        SendCommand(0);
        for (int f = 0; f < frames_; ++f) {
            if (f + 1 < frames_) SendCommand(f + 1);
            frameReady_[f]->acquire();
            Work(displayHost, costs_.displayWorkCpuS, costs_.displayWorkS - costs_.displayWorkCpuS);
            frameDoneS_[f] = sg4::Engine::get_clock();
        }
    }

    const FrameCosts& costs_;
    const Machine& machine_;
    const LinkProfile& waits_;  // the intra-host link's: what waiting costs
    int frames_;
    std::map<int, sg4::Host*> hosts_;
    std::map<int, double> cpuUsedS_;  // CPU seconds each host's ranks have used so far
    std::set<int> crowded_;           // hosts with more ranks than cores (FindCrowded)
    std::map<int, std::vector<sg4::SemaphorePtr>> coreTurns_;  // crowded hosts' cores (FindTurns)
    std::map<int, int> coreOf_;            // each tracer on a crowded host: the core it starts on
    std::map<int, sg4::Host*> endPoints_;  // by display NIC, -1 = intra-host
    std::map<int, sg4::Link*> displayLinks_;  // likewise
    std::vector<Channel<Command>> commands_;
    std::vector<Channel<int>> outboxes_;
    std::vector<Channel<Arrival>> inboxes_;
    std::vector<sg4::SemaphorePtr> frameReady_;
    std::vector<int> messagesLeft_;
    std::vector<double> frameDoneS_;
};

// Plays the frames out and answers the rate after the warm-up (sim::Functions::run).
void RunSimulation(const FrameCosts& costs, const Machine& machine,
                   const std::map<std::string, LinkProfile>& links,
                   const SimulationOptions& options, sim::Answer& answer) {
    try {
        std::string program = "bfv", log = "--log=root.thres:critical";
        std::array<char*, 3> argv{program.data(), log.data(), nullptr};
        int argc = 2;
        sg4::Engine engine(&argc, argv.data());
        // Hockney's links: a message takes latency + bytes / bandwidth (no TCP factors), and
        // concurrent flows share a link max-min fairly.
        sg4::Engine::set_config("network/model:CM02");
        sg4::Engine::set_config("network/crosstraffic:0");
        sg4::Engine::set_config("network/TCP-gamma:0");
        if (kUnderSanitizer)
            sg4::Engine::set_config("contexts/factory:thread");  // the sanitizers follow threads
        FrameSchedule schedule(costs, machine, links, options.frames);
        schedule.Start();
        engine.run();
        const auto& done = schedule.FrameDoneS();
        int last = options.frames - 1, first = options.warmupFrames - 1;
        answer.fps = (last - first) / (done[last] - done[first]);
        answer.simulatedS = done[last];
        answer.ok = std::isfinite(answer.fps) && answer.fps > 0.0;
        if (!answer.ok) std::snprintf(answer.error.data(), answer.error.size(), "no frame rate");
    } catch (const std::exception& e) {
        std::snprintf(answer.error.data(), answer.error.size(), "%s", e.what());
    }
}

}  // namespace

}  // namespace bfv::predict

const bfv::predict::sim::Functions kBfvSimgridFunctions{bfv::predict::RunSimulation};
